package accum

import (
	"errors"
	"unsafe"

	"github.com/axiomhq/hyperloglog"

	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// ErrApproxRetraction is returned when a retraction reaches a sketch: a
// broken plan.
var ErrApproxRetraction = errors.New("APPROX_COUNT_DISTINCT: a retraction over an input planned as append-only")

// approxAgg is APPROX_COUNT_DISTINCT over an append-only input: each group
// keeps a HyperLogLog sketch (precision 14: a standard error of 0.8 %, at
// most 16 KB per group, far less while the group has few values, as the
// sketch starts sparse). Values are hashed by a fixed function (integers
// by their 64-bit mix; doubles and decimals by their canonical keys;
// strings by the sketch's hash of their bytes), so that an estimate
// depends only on the set of values, not on the process, the order or the
// parallelism. A sketch cannot forget a value: over an input that
// retracts, the planner's exact fallback (a DISTINCT count) is used
// instead, and a retraction reaching this state is an error.
type approxAgg struct {
	arenaAgg // two words: the group's last estimate, and 1 while it is current
	kind     Kind
	sketches aggstate.Column[*hyperloglog.Sketch]
	bytes    int64  // estimated memory of the sketches
	enc      []byte // AppendState's scratch: a sketch's encoding
}

func (a *approxAgg) Words() int { return 2 }

func (a *approxAgg) Grow(n int) { a.sketches.Grow(n) }

// Free forgets slot's sketch; the operator clears its arena row after.
func (a *approxAgg) Free(s int32) {
	if sk := a.sketches.At(s); *sk != nil {
		a.bytes -= approxSketchBytes(int64(a.slot(s)[0]))
		*sk = nil
	}
}

func (a *approxAgg) Bytes() int64 { return a.sketches.Bytes() + a.bytes }

func (a *approxAgg) Update(b *Batch, w []int64, arg *Arg) error {
	slots := b.RowSlots()
	w = w[:len(slots)]
	for i, s := range slots {
		switch {
		case w[i] == 0:
			continue
		case w[i] < 0:
			return ErrApproxRetraction
		}
		p := a.sketches.At(s)
		if *p == nil {
			*p = hyperloglog.New14()
			a.bytes += approxSketchBytes(0)
		}
		switch a.kind {
		case KindInt, KindFloat: // doubles arrive as their keys
			(*p).InsertHash(aggstate.Hash64(arg.I[i]))
		default: // strings, and decimals as their keys
			v := arg.S[i]
			(*p).Insert(unsafe.Slice(unsafe.StringData(v), len(v)))
		}
		a.row(b, b.Lids[i])[1] = 0 // the estimate is stale
	}
	return nil
}

// result reads each group's estimate from its arena words, computing it
// again only for the groups whose sketch changed since it was last
// computed: an estimate reads every register of a dense sketch.
func (a *approxAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j, s := range b.Touched {
		r := a.row(b, int32(j))
		if r[1] == 0 {
			r[1] = 1
			if sk := *a.sketches.At(s); sk != nil {
				old := int64(r[0])
				est := int64(sk.Estimate())
				a.bytes += approxSketchBytes(est) - approxSketchBytes(old)
				r[0] = uint64(est)
			}
		}
		dst.I[j], dst.Valid[j] = int64(r[0]), true
	}
	return nil
}

// approxSketchBytes approximates the memory of a sketch holding about est
// values: a few bytes per value while it is sparse, then its 16 KB of
// dense registers.
func approxSketchBytes(est int64) int64 {
	return 64 + min(1<<14, 4*est)
}
