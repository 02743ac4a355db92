package rules

import "github.com/eddysql/eddy/planner/plan"

// PushJoinCondition moves the conjuncts of a join condition that test one
// side only below the join, as a filter on that side, where that keeps the
// join's result:
//
//	Join Left on=b.bidder = p.id AND p.city = 'Oslo' (X) (Scan person p)
//	  ⇒  Join Left on=b.bidder = p.id (X) (Filter p.city = 'Oslo' (Scan person p))
//
// Safety: a conjunct over the right side's columns decides which right
// rows can match. In an inner, left, semi or anti join an unmatchable right
// row contributes nothing, so dropping it before the join changes no output
// row (a left row it no longer matches is padded, or kept by the anti
// join, exactly as the condition would have it). Symmetrically for the
// left side of inner, right and semi joins. A conjunct over the preserved
// side of an outer join (or the left side of an anti join) must stay: a
// row failing it is still output, padded. Volatile conjuncts stay.
// Profitability: rows that cannot match are dropped before they are
// shuffled and kept in join state.
type PushJoinCondition struct{}

// Name implements Rule.
func (PushJoinCondition) Name() string { return "PushJoinCondition" }

// Apply implements Rule.
func (PushJoinCondition) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, pushJoinCondition)
}

func pushJoinCondition(_ *Context, j *plan.Join) (plan.Node, bool, error) {
	if j.On == nil {
		return j, false, nil
	}
	var places conjunctPlaces
	places.left, places.right = unmatchedDroppable(j.Kind)
	toLeft, toRight, _, keep := sortConjuncts(plan.Conjuncts(j.On), j, places)
	if len(toLeft)+len(toRight) == 0 {
		return j, false, nil
	}
	out := &plan.Join{Kind: j.Kind, Left: filterOn(j.Left, toLeft), Right: filterOn(j.Right, toRight), Lookup: j.Lookup}
	if len(keep) > 0 {
		out.On = plan.MakeAnd(keep)
	}
	return out, true, nil
}
