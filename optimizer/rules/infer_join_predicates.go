package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// InferJoinPredicates carries a restriction of a join key to constants
// across the join's equality, as a filter on the other side:
//
//	Join Inner on=a.id = b.auction (Filter a.id IN (1, 2) (Scan auction a)) (Scan bid b)
//	  ⇒  Join Inner on=a.id = b.auction (Filter a.id IN (1, 2) (Scan auction a)) (Filter b.auction IN (1, 2) (Scan bid b))
//
// The join condition must have a conjunct l = r between a column of each
// side. A restriction is any conjunct whose only column is l (a.k = 5,
// a.k > 5, a.k IN (...), both halves of a.k BETWEEN ..., a.k LIKE ...,
// UPPER(a.k) = 'X', ...) that is known TRUE on every row the left input
// outputs — a filter below it, seen through projections, joins and the
// other nodes knownConjuncts follows — or that is a conjunct of the join
// condition itself. The same conjunct over r is added on top of the right
// input (merged into its filter, if it has one), and symmetrically from
// right to left. Applied again above another join, the rule carries the
// inferred conjunct further: a.k = b.k and b.k = c.k with a.k = 5 give
// b.k = 5 and then c.k = 5.
//
// Safety: a pair of rows matches only when the whole condition is TRUE, so
// l = r is TRUE: both keys are non-NULL and equal. The keys must have the
// same type (or both be integers), not floating point, so equal values
// are identical — for strings, eddy compares bytes — and any deterministic
// conjunct over one gives the same value over the other; floating-point
// keys are skipped because 0.0 = -0.0 although the two can be told apart.
// A restriction known on a side holds on every matching pair, and so does
// a conjunct of the condition. So every row of the other side that fails
// the inferred conjunct matches no row at all, and the rule may drop it
// before the join exactly where an unmatched row of that side contributes
// nothing to the output: on both sides of an inner or semi join, on the
// right side of a left or anti join (the anti join keeps the left rows that
// have no match, and a dropped right row matched none), and on the left
// side of a right join. It never adds a filter to a side the join
// preserves (the left of LEFT and ANTI, the right of RIGHT, both of FULL),
// because an unmatched row there is still output — padded with NULLs, or
// as it is by the anti join: an inferred b.k = 5 on the preserved side of
// `a RIGHT JOIN b ON a.k = b.k AND a.k = 5` would drop the rows the join
// outputs with NULLs for a; and the
// filter always goes below the join, never above it, where the padded
// rows' NULLs would fail it. Retractions are filtered like their rows, and
// a row the filter drops never matched, so neither did its retraction.
// Volatile conjuncts are never carried.
//
// Termination: the rule adds a conjunct only when implied shows the target
// side does not guarantee it already — through whatever moves the filter
// further down (PushFilterThroughProject, PushFilterBelowAggregate,
// PushFilterIntoJoin, MergeFilters) — and compares expressions in the form
// FoldConstants and OrEqualitiesToIn leave them in, so it fires once per
// conjunct and key. A side under a filter that folded to FALSE or NULL
// outputs no row and so guarantees every conjunct: nothing is added there
// (FoldConstants would fold it away again).
// Profitability: rows that cannot match are dropped before they are
// shuffled and kept in join state, and the cost-based join order sees the
// smaller inputs; the cost is one evaluation of a conjunct per row of that
// side, less than the shuffle and the state it saves.
type InferJoinPredicates struct{}

// Name implements Rule.
func (InferJoinPredicates) Name() string { return "InferJoinPredicates" }

// Apply implements Rule.
func (InferJoinPredicates) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, inferJoinPredicates)
}

func inferJoinPredicates(c *Context, j *plan.Join) (plan.Node, bool, error) {
	if j.On == nil {
		return j, false, nil
	}
	left, right := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	var on []plan.Expr
	for _, cj := range plan.Conjuncts(j.On) {
		if !isVolatile(cj) {
			on = append(on, canonical(c, cj))
		}
	}
	type keyPair struct{ l, r *plan.ColRef }
	var keys []keyPair
	for _, cj := range on {
		if l, r, ok := equiKeys(cj, left, right); ok {
			keys = append(keys, keyPair{l, r})
		}
	}
	if len(keys) == 0 {
		return j, false, nil
	}
	dropLeft, dropRight := unmatchedDroppable(j.Kind)
	var toLeft, toRight []plan.Expr
	if dropRight {
		from := append(knownConjuncts(c, j.Left), overCols(on, left)...)
		for _, kp := range keys {
			toRight = inferOnto(c, toRight, from, kp.l, kp.r, j.Right, on)
		}
	}
	if dropLeft {
		from := append(knownConjuncts(c, j.Right), overCols(on, right)...)
		for _, kp := range keys {
			toLeft = inferOnto(c, toLeft, from, kp.r, kp.l, j.Left, on)
		}
	}
	if len(toLeft)+len(toRight) == 0 {
		return j, false, nil
	}
	return &plan.Join{Kind: j.Kind, Left: addConjuncts(j.Left, toLeft), Right: addConjuncts(j.Right, toRight),
		On: j.On, Lookup: j.Lookup}, true, nil
}

// equiKeys matches l = r between a column of each side, of types whose
// equal values are identical.
func equiKeys(e plan.Expr, left, right plan.ColSet) (*plan.ColRef, *plan.ColRef, bool) {
	b, ok := e.(*plan.Binary)
	if !ok || b.Op != plan.OpEq {
		return nil, nil, false
	}
	l, lok := b.L.(*plan.ColRef)
	r, rok := b.R.(*plan.ColRef)
	if !lok || !rok {
		return nil, nil, false
	}
	if !left.Contains(l.ID) {
		l, r = r, l
	}
	if !left.Contains(l.ID) || !right.Contains(r.ID) {
		return nil, nil, false
	}
	lt, rt := l.Typ, r.Typ
	if lt.Physical() == types.PhysFloat64 || lt != rt && !(lt.IsInteger() && rt.IsInteger()) {
		return nil, nil, false
	}
	return l, r, true
}

// inferOnto appends to out the conjuncts of from over the single column
// src, rewritten over dst, that target (with the join condition on) does
// not already guarantee.
func inferOnto(c *Context, out, from []plan.Expr, src, dst *plan.ColRef, target plan.Node, on []plan.Expr) []plan.Expr {
	for _, cj := range from {
		cols := plan.ColsUsed(cj)
		if cols.Len() != 1 || !cols.Contains(src.ID) || isVolatile(cj) {
			continue
		}
		if dst.Null && hasNonNullFunc(cj) {
			// A function call records whether it can return NULL, decided
			// for its arguments when bound; one marked never NULL must not
			// be given a column that can be.
			continue
		}
		t := canonical(c, plan.MapColRefs(cj, func(r *plan.ColRef) plan.Expr {
			if r.ID == src.ID {
				return dst
			}
			return r
		}))
		if plan.IsTrue(t) || hasConjunct(out, t) || hasConjunct(on, t) || implied(c, target, t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// hasNonNullFunc reports whether e calls a function marked never NULL.
func hasNonNullFunc(e plan.Expr) bool {
	found := false
	plan.Walk(e, func(x plan.Expr) bool {
		if f, ok := x.(*plan.Func); ok && !f.Null {
			found = true
		}
		return !found
	})
	return found
}
