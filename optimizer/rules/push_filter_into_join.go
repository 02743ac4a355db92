package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// PushFilterIntoJoin moves the conjuncts of a filter above a join into the
// join: those over one side's columns below the join on that side, those
// over both sides into an inner join's condition:
//
//	Filter b.price > 10 AND b.bidder = p.id (Join Inner (Scan bid b) (Scan person p))
//	  ⇒  Join Inner on=b.bidder = p.id (Filter b.price > 10 (Scan bid b)) (Scan person p)
//
// so a comma-separated FROM with its join condition in WHERE becomes an
// equi-join. Before that it simplifies an outer join whose padded side a
// conjunct rejects when NULL: WHERE p.name = 'x' above a LEFT JOIN keeps
// no padded row, so the join is an inner one.
//
// Safety: a conjunct over the left columns tests each output row's left
// part; when the join outputs no left row padded with NULLs (inner, left,
// semi and anti joins), filtering the left input first removes exactly the
// output rows the filter would have removed, with their retractions. The
// same holds for the right side of inner and right joins. A conjunct over
// both sides of an inner join filters the pairs, which is what the join
// condition does. A null-rejecting conjunct removes every padded row, and
// an outer join without its padded rows is the inner join; `x <=> y` is
// TRUE when both are NULL, so it rejects NULLs only if it folds to FALSE
// with the side's columns NULL. Volatile
// conjuncts stay where they are.
// Profitability: rows are dropped before they are shuffled and kept in
// join state, and equalities become hash keys instead of a cross product.
type PushFilterIntoJoin struct{}

// Name implements Rule.
func (PushFilterIntoJoin) Name() string { return "PushFilterIntoJoin" }

// Apply implements Rule.
func (PushFilterIntoJoin) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, pushFilterIntoJoin)
}

func pushFilterIntoJoin(c *Context, f *plan.Filter, j *plan.Join) (plan.Node, bool, error) {
	left, right := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	conj := plan.Conjuncts(f.Pred)
	kind := j.Kind
	for _, cj := range conj {
		if kind.PreservesRight() && rejectsNull(c, cj, left) {
			kind = withoutPadding(kind, false)
		}
		if kind.PreservesLeft() && rejectsNull(c, cj, right) {
			kind = withoutPadding(kind, true)
		}
	}
	// A side's conjuncts go below it where the join outputs its rows
	// unpadded; conjuncts over both sides go into an inner join's condition.
	toLeft, toRight, toOn, above := sortConjuncts(conj, j, conjunctPlaces{
		left:  kind == plan.InnerJoin || kind == plan.LeftJoin || kind == plan.SemiJoin || kind == plan.AntiJoin,
		right: kind == plan.InnerJoin || kind == plan.RightJoin,
		both:  kind == plan.InnerJoin,
	})
	if kind == j.Kind && len(toLeft)+len(toRight)+len(toOn) == 0 {
		return f, false, nil
	}
	out := &plan.Join{Kind: kind, Left: filterOn(j.Left, toLeft), Right: filterOn(j.Right, toRight), On: j.On, Lookup: j.Lookup}
	if len(toOn) > 0 {
		if j.On != nil {
			toOn = append(plan.Conjuncts(j.On), toOn...)
		}
		out.On = plan.MakeAnd(toOn)
	}
	if len(above) == 0 {
		return out, true, nil
	}
	return &plan.Filter{Input: out, Pred: plan.MakeAnd(above)}, true, nil
}

// withoutPadding returns the join kind that no longer pads the given side
// (right when padRight, else left) with NULLs.
func withoutPadding(k plan.JoinKind, padRight bool) plan.JoinKind {
	switch {
	case k == plan.FullJoin && padRight:
		return plan.RightJoin
	case k == plan.FullJoin:
		return plan.LeftJoin
	case k == plan.LeftJoin && padRight, k == plan.RightJoin && !padRight:
		return plan.InnerJoin
	}
	return k
}

// rejectsNull reports whether e is never TRUE when every column of side is
// NULL: a comparison other than <=> with a side column as an operand (NULL
// compares as NULL; NULL <=> NULL is TRUE), or a predicate over side
// columns alone that folds to FALSE or NULL when they are NULL.
func rejectsNull(c *Context, e plan.Expr, side plan.ColSet) bool {
	cols := plan.ColsUsed(e)
	if !cols.Intersects(side) {
		return false
	}
	if b, ok := e.(*plan.Binary); ok && b.Op.IsComparison() && b.Op != plan.OpNullSafeEq {
		for _, x := range []plan.Expr{b.L, b.R} {
			if r, ok := x.(*plan.ColRef); ok && side.Contains(r.ID) {
				return true
			}
		}
	}
	if !cols.SubsetOf(side) || c.Fold == nil {
		return false
	}
	nulled := plan.MapColRefs(e, func(r *plan.ColRef) plan.Expr { return &plan.Const{Val: types.NullDatum, Typ: r.Typ} })
	v, err := c.Fold(nulled)
	return err == nil && (v.Null || !v.Bool())
}
