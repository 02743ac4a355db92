package rules

import "github.com/eddysql/eddy/planner/plan"

// MergeFilterProject fuses a projection over a filter into one Calc, so the
// predicate and the projections are evaluated in a single pass over each
// batch (as Flink's Calc):
//
//	Project channel (Filter price > 10 (X))  ⇒  Calc filter=price > 10 project=[channel] (X)
//
// Safety: a Calc is by definition a filter followed by a projection; both are
// linear, so ops pass through with their rows.
// Profitability: always — one operator and one pass instead of two.
type MergeFilterProject struct{}

// Name implements Rule.
func (MergeFilterProject) Name() string { return "MergeFilterProject" }

// Apply implements Rule.
func (MergeFilterProject) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	if p, ok := n.(*plan.Project); ok {
		if f, ok := p.Input.(*plan.Filter); ok {
			return &plan.Calc{Input: f.Input, Pred: f.Pred, Items: p.Items}, true, nil
		}
	}
	return n, false, nil
}
