package physical

import (
	"slices"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Keyed operators over input hashed already. A hash join's output is
// hash-partitioned on its join keys: each row of an inner join is on the
// instance its left key hashed to, and its right key's too. A Top-N or an
// aggregate whose partition or group keys include the columns of such a
// key needs no exchange of its own: every row of a partition or group is
// on one instance already. q6's Top-N by (auction id, seller) over the
// join of auctions and bids on the auction id would otherwise hash every
// joined row again on (id, seller), to an instance no better than the one
// it is on.
//
// Such an operator reads the join's output through a forward exchange,
// instance i to instance i at the join's parallelism: the batches are
// passed on, neither hashed nor copied, and the two still run as a
// pipeline on two threads (chained into the join's stage, q9 at
// parallelism 1 took a third longer in wall time). Its key groups are
// those of the columns the rows were hashed on (TopN.PartKeys,
// HashAgg.PartKeys, "partitioned=[...]" in EXPLAIN unless they are all its
// keys, in order), so that checkpoints, restores and rescales place its
// state where its rows arrive.
//
// The same holds of a join's side: one hashed on exactly the join's keys
// already, in their order (an aggregate grouped by the join key: q8's
// auctions by seller and window; a table joined on its primary key), is
// forwarded to the join, and only the other side is hashed (keyedSide).
//
// The property follows the hashed columns up through projections that
// pass them on, forward exchanges, window assignments and Top-Ns, and
// from an aggregate's keys (those it is partitioned by), a session
// window aggregate's keys and a table's primary key (its Upsert), and
// stops at everything else. It holds for a join whose sides are both
// partitioned on its keys (HashJoin.Hashed: hashed by its exchanges, or
// forwarded hashed already), and for an outer join only for the keys of
// its preserved side: a NULL-extended row is where its other side's key
// hashed, not its NULLs.
// A join the optimizer may broadcast at some parallelism (a lookup into
// a table, a window join, a bounded side small enough:
// HashJoin.MayBroadcast) is left out, so that the choice, like the
// exchanges it replaces, is the same at every parallelism: a rescale
// keeps the state layout. A join that is followed so cannot switch to a
// broadcast at run time either (markAdaptive clears it: adaptive.go). It
// is not taken when every hashed column is a BOOLEAN: two values would
// put every group on at most two instances.

// hashedOn returns the sets of n's column ordinals its rows are
// hash-partitioned on over the plan's parallelism, in the order the
// exchange hashed them: rows equal on any one set's columns are on the
// same instance, the one whose key groups hold the hash of those columns.
func (b *builder) hashedOn(n Node) [][]int {
	h := n.Hdr()
	if h.Parallelism != b.opts.Parallelism {
		return nil
	}
	switch x := n.(type) {
	case *Exchange:
		switch x.Dist {
		case Hash:
			return [][]int{slices.Clone(x.Keys)}
		case Forward:
			return b.hashedOn(x.Inputs[0])
		}
	case *Calc:
		var out [][]int
		for _, set := range b.hashedOn(x.Inputs[0]) {
			if mapped, ok := passedOn(x.Projs, set); ok {
				out = append(out, mapped)
			}
		}
		return out
	case *WindowAssign, *TopN:
		// The input's columns come first, unchanged.
		return b.hashedOn(x.Hdr().Inputs[0])
	case *HashJoin:
		return joinHashedOn(x)
	case *SessionAgg:
		// Each key's sessions are on the instance of the key's hash; the
		// keys come first among the output's columns.
		if len(x.Keys) == 0 {
			return nil
		}
		return [][]int{identityKeys(len(x.Keys))}
	case *Upsert:
		// A table's rows, by its primary key: hashed on it by the exchange
		// before it, or on one instance.
		return [][]int{slices.Clone(x.Keys)}
	case *HashAgg:
		// A group's rows, and so its results, are on the instance of its
		// keys' hash (or of those it is partitioned by); they come first
		// among the output's columns.
		if len(x.GroupKeys) == 0 {
			return nil
		}
		set := slices.Clone(x.PartKeys)
		if set == nil {
			set = identityKeys(len(x.GroupKeys))
		}
		return [][]int{set}
	}
	return nil
}

// keyedSide returns a join's side, in, partitioned on its keys (ordinals
// of its columns): by a hash exchange, or by a forward exchange when it
// is hashed on exactly those keys already, in their order (a join after
// an aggregate grouped by its key), and each of them has the type of the
// other side's key it is compared with, so that both sides' keys hash
// alike.
func (b *builder) keyedSide(in Node, keys []int, other Node, otherKeys []int) Node {
	p := b.opts.Parallelism
	cols, ocols := in.Hdr().Cols, other.Hdr().Cols
	for i, k := range keys {
		if cols[k].Type != ocols[otherKeys[i]].Type {
			return b.exchange(in, Hash, keys, p)
		}
	}
	for _, set := range b.hashedOn(in) {
		if slices.Equal(set, keys) {
			return b.exchange(in, Forward, nil, p)
		}
	}
	return b.exchange(in, Hash, keys, p)
}

// joinHashedOn returns the key sets a join's output is hashed on: its
// left keys when its left side is preserved (an inner, left, semi or
// anti join), its right keys, after the left side's columns, when its
// right side is (inner or right).
func joinHashedOn(j *HashJoin) [][]int {
	if j.MayBroadcast {
		return nil
	}
	if !j.Hashed {
		return nil
	}
	var out [][]int
	switch j.Kind {
	case plan.InnerJoin, plan.LeftJoin, plan.SemiJoin, plan.AntiJoin:
		out = append(out, slices.Clone(j.LeftKeys))
	}
	switch j.Kind {
	case plan.InnerJoin, plan.RightJoin:
		width := len(j.Inputs[0].Hdr().Cols)
		keys := make([]int, len(j.RightKeys))
		for i, k := range j.RightKeys {
			keys[i] = width + k
		}
		out = append(out, keys)
	}
	return out
}

// passedOn maps input ordinals set through projections: each to the first
// output that is a plain reference to it. It reports false when one is
// not passed on.
func passedOn(projs []plan.Expr, set []int) ([]int, bool) {
	out := make([]int, len(set))
	for i, ord := range set {
		j := slices.IndexFunc(projs, func(e plan.Expr) bool {
			r, ok := e.(*plan.InputRef)
			return ok && r.Ord == ord
		})
		if j < 0 {
			return nil, false
		}
		out[i] = j
	}
	return out, true
}

// hashedWithin returns, for an operator keyed by keys (ordinals of in's
// columns), the indexes in keys of the columns in is hashed on, if in is
// hashed on columns that are all among keys and not all BOOLEAN: nil when
// they are all the keys, in order.
func (b *builder) hashedWithin(in Node, keys []int) ([]int, bool) {
	if len(keys) == 0 {
		return nil, false
	}
	cols := in.Hdr().Cols
	for _, set := range b.hashedOn(in) {
		part := make([]int, 0, len(set))
		flags := 0
		for _, ord := range set {
			i := slices.Index(keys, ord)
			if i < 0 {
				break
			}
			part = append(part, i)
			if cols[ord].Type.Kind == types.Boolean {
				flags++
			}
		}
		if len(part) == len(set) && len(set) > 0 && flags < len(set) {
			if identity(part, len(keys)) {
				part = nil // every key, in order: what the operator hashes anyway
			}
			return part, true
		}
	}
	return nil, false
}

// identityKeys returns 0, 1, ..., n-1.
func identityKeys(n int) []int {
	keys := make([]int, n)
	for i := range keys {
		keys[i] = i
	}
	return keys
}

// identity reports whether part is 0, 1, ..., n-1.
func identity(part []int, n int) bool {
	if len(part) != n {
		return false
	}
	for i, k := range part {
		if k != i {
			return false
		}
	}
	return true
}
