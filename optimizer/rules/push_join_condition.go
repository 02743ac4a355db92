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
	j, ok := n.(*plan.Join)
	if !ok || j.On == nil {
		return n, false, nil
	}
	left, right := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	k := j.Kind
	pushLeft := k == plan.InnerJoin || k == plan.RightJoin || k == plan.SemiJoin
	pushRight := k == plan.InnerJoin || k == plan.LeftJoin || k == plan.SemiJoin || k == plan.AntiJoin
	var toLeft, toRight, keep []plan.Expr
	for _, cj := range plan.Conjuncts(j.On) {
		cols := plan.ColsUsed(cj)
		switch {
		case isVolatile(cj) || cols.Empty():
			keep = append(keep, cj)
		case pushLeft && cols.SubsetOf(left):
			toLeft = append(toLeft, cj)
		case pushRight && cols.SubsetOf(right):
			toRight = append(toRight, cj)
		default:
			keep = append(keep, cj)
		}
	}
	if len(toLeft)+len(toRight) == 0 {
		return n, false, nil
	}
	out := &plan.Join{Kind: k, Left: filterOn(j.Left, toLeft), Right: filterOn(j.Right, toRight), Lookup: j.Lookup}
	if len(keep) > 0 {
		out.On = plan.MakeAnd(keep)
	}
	return out, true, nil
}
