package rules

import "github.com/eddysql/eddy/planner/plan"

// MergeFilters combines stacked filters into one conjunction:
//
//	Filter p (Filter q (X))  ⇒  Filter q AND p (X)
//
// Safety: a row passes both filters exactly when q AND p is TRUE (a NULL in
// either rejects it in both forms). The inner predicate comes first so that
// a guard such as `x <> 0` still precedes `10 / x > 1` in evaluation order.
// Profitability: always — one pass over the batch instead of two, and the
// merged filter can move further down as a whole.
type MergeFilters struct{}

// Name implements Rule.
func (MergeFilters) Name() string { return "MergeFilters" }

// Apply implements Rule.
func (MergeFilters) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, mergeFilters)
}

func mergeFilters(_ *Context, outer, inner *plan.Filter) (plan.Node, bool, error) {
	return &plan.Filter{Input: inner.Input, Pred: plan.MakeAnd([]plan.Expr{inner.Pred, outer.Pred})}, true, nil
}
