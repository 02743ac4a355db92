package physical

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// Sinking an aggregate's exchange below its window assignment. A HOP or
// CUMULATE window puts each row in several windows (a 10-second HOP
// sliding by 2 seconds: five), and an aggregate grouped by a window and
// other keys would have every one of those copies hashed and sent to its
// group's instance. Rows that agree on the other keys — the auction of
// an auction's windows — are all the aggregate needs together, so the
// exchange may hash those keys alone, and then it may as well run below
// the window assignment, which keeps them: one row a bid crosses the
// exchange instead of five. The aggregate's groups then belong to the key
// groups of those keys (HashAgg.PartKeys), which its checkpoints and
// rescales follow.
//
// The exchange moves down through projections that pass the keys on and
// window assignments, and stops below the lowest window assignment that
// multiplies rows: it never moves below a filter's projection of the
// same rows for nothing, nor below anything else. The choice does not
// depend on the parallelism, so the state layout (and a rescale) does
// not either.
//
// Likewise below a projection that computes some group keys and passes
// others on: q17's DATE_FORMAT(date_time, ...) day, and its CASE columns,
// beside its auction. Hashing the keys passed on sends each group to one
// instance as well, and the exchange then carries the projection's input
// (auction, price, date_time) rather than its wider output (a string and
// four more columns per bid), which the instances compute after it. It
// does so when the projection filters nothing, its input is no wider than
// its output, and a key passed on is not a BOOLEAN: a flag alone would put
// every group on two instances. Like the rest, the choice reads no
// statistics, which ANALYZE may change between runs: a plan read again
// at a restart must keep its state layout to resume its checkpoint.

// sinkKey is a group key's index in an aggregate's keys and its ordinal
// at a node below the aggregate.
type sinkKey struct{ idx, ord int }

// sinkExchange returns in with a hash exchange on the keys among keys
// (ordinals of in's columns) that pass through in's projections and
// window assignments, placed below the lowest window assignment that
// multiplies rows, the stages above it now at the plan's parallelism,
// and the indexes in keys of the keys it hashes. It reports false when
// there is no such window, or no key survives it, or every key does (an
// ordinary exchange above does as well), and when there is no such
// window or projection.
func (b *builder) sinkExchange(in Node, keys []int) (Node, []int, bool) {
	if len(keys) == 0 {
		return nil, nil, false
	}
	cur := make([]sinkKey, len(keys))
	for i, k := range keys {
		cur[i] = sinkKey{i, k}
	}
	var chain []Node    // the nodes above the exchange, top down
	var below []sinkKey // the keys at the exchange
	var base Node       // what the exchange reads
	sink := func() (Node, []int, bool) {
		if base == nil || len(below) == len(keys) {
			return nil, nil, false
		}
		ords := make([]int, len(below))
		part := make([]int, len(below))
		for i, k := range below {
			ords[i], part[i] = k.ord, k.idx
		}
		p := b.opts.Parallelism
		ex := b.exchange(base, Hash, ords, p)
		for _, c := range chain {
			c.Hdr().Parallelism = p
		}
		chain[len(chain)-1].Hdr().Inputs[0] = ex
		return in, part, true
	}
	filtered := false // the walk passed a filter: no projection below it may take the exchange
	for n := in; ; n = n.Hdr().Inputs[0] {
		switch x := n.(type) {
		case *Calc:
			next := cur[:0:0]
			for _, k := range cur {
				if r, ok := x.Projs[k.ord].(*plan.InputRef); ok {
					next = append(next, sinkKey{k.idx, r.Ord})
				}
			}
			filtered = filtered || x.Filter != nil
			if !filtered && len(next) > 0 && len(next) < len(cur) && sinkBelowCalc(x, next) {
				chain = append(chain[:0:0], chainTo(in, x)...)
				below, base = append(below[:0:0], next...), x.Inputs[0]
			}
			cur = next
		case *WindowAssign:
			width := len(x.Inputs[0].Hdr().Cols) // window_start and window_end follow the input's columns
			next := cur[:0:0]
			for _, k := range cur {
				if k.ord < width {
					next = append(next, k)
				}
			}
			cur = next
			if x.Kind != plan.Tumble && x.Slide > 0 && x.Slide < x.Size && len(cur) > 0 {
				chain = append(chain[:0:0], chainTo(in, x)...)
				below, base = append(below[:0:0], cur...), x.Inputs[0]
			}
		default:
			return sink()
		}
		if len(cur) == 0 {
			return sink()
		}
	}
}

// chainTo returns the nodes from top down to bottom, both included,
// following first inputs.
func chainTo(top, bottom Node) []Node {
	var out []Node
	for n := top; ; n = n.Hdr().Inputs[0] {
		out = append(out, n)
		if n == bottom {
			return out
		}
	}
}

// sinkBelowCalc reports whether an exchange hashing the keys at (their
// ordinals in x's input) may go below projection x, which computes other
// group keys: x's input is no wider than its output, and a key of at is
// not a BOOLEAN.
func sinkBelowCalc(x *Calc, at []sinkKey) bool {
	in := x.Inputs[0].Hdr().Types()
	if cost.RowWidth(in) > cost.RowWidth(x.Hdr().Types()) {
		return false
	}
	for _, k := range at {
		if in[k.ord].Kind != types.Boolean {
			return true
		}
	}
	return false
}
