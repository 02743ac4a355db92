package rules

import "github.com/eddysql/eddy/planner/plan"

// EliminateProject removes a projection (or a Calc without a filter) that
// forwards exactly its input's columns in order:
//
//	Project a, b (X with columns a, b)  ⇒  X
//
// Safety: the node's output is identical to its input's, rows and ops alike.
// Profitability: always — one operator less.
type EliminateProject struct{}

// Name implements Rule.
func (EliminateProject) Name() string { return "EliminateProject" }

// Apply implements Rule.
func (EliminateProject) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	switch p := n.(type) {
	case *plan.Project:
		if isIdentity(p.Items, p.Input.Output()) {
			return p.Input, true, nil
		}
	case *plan.Calc:
		if p.Pred == nil && isIdentity(p.Items, p.Input.Output()) {
			return p.Input, true, nil
		}
	}
	return n, false, nil
}
