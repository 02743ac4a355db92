package rules

import "github.com/eddysql/eddy/planner/plan"

// ApplyToJoin turns an apply whose right side does not read its left side
// (an uncorrelated subquery, or one the other decorrelation rules have
// freed of its outer references) into a join of the same kind:
//
//	Apply Left single (L) (Aggregate COUNT(*) (R))  ⇒  Join Left (L) (Aggregate COUNT(*) (R))
//
// Safety: the right side produces the same rows for every left row, so
// joining each left row with them is the join. A single-row apply (a
// scalar subquery) whose right side may have several rows gets the check
// that fails the query when it does (singleRowCheck: it counts the rows
// and passes the value through plan.SingleRow); a global aggregate has
// one row and needs none.
// Profitability: required — no operator runs an Apply.
type ApplyToJoin struct{}

// Name implements Rule.
func (ApplyToJoin) Name() string { return "ApplyToJoin" }

// Apply implements Rule.
func (ApplyToJoin) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, func(c *Context, a *plan.Apply) (plan.Node, bool, error) {
		if !correlation(a).Empty() {
			return a, false, nil
		}
		right := a.Right
		if a.Single && !atMostOneRow(right) {
			right = singleRowCheck(c.Md, right, nil, a.Pos)
		}
		return &plan.Join{Kind: a.Kind, Left: a.Left, Right: right, On: a.On}, true, nil
	})
}
