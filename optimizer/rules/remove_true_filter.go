package rules

import "github.com/eddysql/eddy/planner/plan"

// RemoveTrueFilter drops a filter whose predicate is the literal TRUE:
//
//	Filter TRUE (X)  ⇒  X
//
// Safety: the filter keeps every row, retractions included, and passes
// watermarks through unchanged, so removing it changes nothing.
// Profitability: always — one operator less.
type RemoveTrueFilter struct{}

// Name implements Rule.
func (RemoveTrueFilter) Name() string { return "RemoveTrueFilter" }

// Apply implements Rule.
func (RemoveTrueFilter) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	if f, ok := n.(*plan.Filter); ok && plan.IsTrue(f.Pred) {
		return f.Input, true, nil
	}
	return n, false, nil
}
