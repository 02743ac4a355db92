package rules

import "github.com/eddysql/eddy/planner/plan"

// PushFilterBelowAggregate moves the conjuncts of a filter above an
// aggregate that test only grouping columns below it:
//
//	Filter channel <> 'web' AND n > 1 (Aggregate group=[channel] (X))
//	  ⇒  Filter n > 1 (Aggregate group=[channel] (Filter channel <> 'web' (X)))
//
// Safety: a conjunct over grouping columns has one value per group, so it
// keeps or drops whole groups; dropping the group's input rows instead
// yields the same groups with the same aggregates. Retractions of a dropped
// group are dropped with it. A global aggregate (no grouping columns) always
// produces its one row, so nothing is pushed below it.
// Profitability: rows of excluded groups are discarded before they are
// shuffled and before they cost aggregate state.
type PushFilterBelowAggregate struct{}

// Name implements Rule.
func (PushFilterBelowAggregate) Name() string { return "PushFilterBelowAggregate" }

// Apply implements Rule.
func (PushFilterBelowAggregate) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, pushFilterBelowAggregate)
}

func pushFilterBelowAggregate(_ *Context, f *plan.Filter, agg *plan.Aggregate) (plan.Node, bool, error) {
	if len(agg.Group) == 0 {
		return f, false, nil
	}
	groups := agg.Group.ToSet()
	var below, above []plan.Expr
	for _, cj := range plan.Conjuncts(f.Pred) {
		if plan.ColsUsed(cj).SubsetOf(groups) && !isVolatile(cj) {
			below = append(below, cj)
		} else {
			above = append(above, cj)
		}
	}
	if len(below) == 0 {
		return f, false, nil
	}
	pushed := *agg
	pushed.Input = &plan.Filter{Input: agg.Input, Pred: plan.MakeAnd(below)}
	var out plan.Node = plan.ResetProps(&pushed)
	if len(above) > 0 {
		out = &plan.Filter{Input: out, Pred: plan.MakeAnd(above)}
	}
	return out, true, nil
}
