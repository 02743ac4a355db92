package rules

import "github.com/eddysql/eddy/planner/plan"

// PullApplyFilter moves the conjuncts of a filter on an apply's right side
// that read the left side into the apply's condition:
//
//	Apply Semi (B) (Filter a.id = b.auction AND a.reserve > 10 (A))
//	  ⇒  Apply Semi on=a.id = b.auction (B) (Filter a.reserve > 10 (A))
//
// the decorrelation of a subquery correlated only in its WHERE clause;
// ApplyToJoin then makes the apply a join on those conditions.
// Safety: for each left row the right side keeps the rows that pass the
// conjuncts; joining the unfiltered rows on the conjuncts (with the
// apply's condition) pairs the left row with exactly those, for every join
// kind: inner and semi join the pairs, a left apply pads a row with none,
// an anti apply keeps it. A single-row apply is not rewritten: it checks
// the rows the subquery returns per left row, which a join condition no
// longer counts (UnnestApply decorrelates it). Volatile conjuncts stay.
// Profitability: the conjuncts become the join's keys (an equi-join)
// instead of a dependent evaluation per left row.
type PullApplyFilter struct{}

// Name implements Rule.
func (PullApplyFilter) Name() string { return "PullApplyFilter" }

// Apply implements Rule.
func (PullApplyFilter) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, func(c *Context, a *plan.Apply) (plan.Node, bool, error) {
		f, ok := a.Right.(*plan.Filter)
		outer := correlation(a)
		if !ok || a.Single || outer.Empty() {
			return a, false, nil
		}
		var moved, kept []plan.Expr
		for _, e := range plan.Conjuncts(f.Pred) {
			if plan.ColsUsed(e).Intersects(outer) && !plan.IsVolatile(e) {
				moved = append(moved, e)
			} else {
				kept = append(kept, e)
			}
		}
		if len(moved) == 0 {
			return a, false, nil
		}
		var right plan.Node = f.Input
		if len(kept) > 0 {
			right = &plan.Filter{Input: f.Input, Pred: plan.MakeAnd(kept)}
		}
		if a.On != nil {
			moved = append([]plan.Expr{a.On}, moved...)
		}
		return &plan.Apply{Kind: a.Kind, Left: a.Left, Right: right, On: plan.MakeAnd(moved), Pos: a.Pos}, true, nil
	})
}
