package rules

import "github.com/eddysql/eddy/planner/plan"

// ConvertToCalc turns a filter or a projection that did not fuse with a
// neighbour into a Calc, so the physical plan has one stateless per-row
// operator kind and adjacent ones can merge (MergeCalcs):
//
//	Filter p (X)   ⇒  Calc filter=p project=[X's columns] (X)
//	Project P (X)  ⇒  Calc project=P (X)
//
// Safety: a Calc with no predicate is a projection, and one that forwards
// its input's columns is a filter.
// Profitability: neutral by itself; it enables MergeCalcs. It runs after
// MergeFilterProject so a filter under a projection fuses with it first.
type ConvertToCalc struct{}

// Name implements Rule.
func (ConvertToCalc) Name() string { return "ConvertToCalc" }

// Apply implements Rule.
func (ConvertToCalc) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	switch n := n.(type) {
	case *plan.Project:
		return &plan.Calc{Input: n.Input, Items: n.Items}, true, nil
	case *plan.Filter:
		return &plan.Calc{Input: n.Input, Pred: n.Pred, Items: c.Md.IdentityItems(n.Input.Output())}, true, nil
	}
	return n, false, nil
}
