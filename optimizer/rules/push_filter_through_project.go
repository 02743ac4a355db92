package rules

import "github.com/eddysql/eddy/planner/plan"

// PushFilterThroughProject moves a filter below a projection, rewriting the
// predicate in terms of the projection's input:
//
//	Filter eur > 45 (Project price * 0.9 AS eur (X))  ⇒  Project price * 0.9 AS eur (Filter price * 0.9 > 45 (X))
//
// Safety: the projection computes each output row from one input row, so
// filtering before or after selects the same rows, with their ops (a
// projection is linear on Z-sets: a retraction is filtered exactly as its
// insertion was). It does not apply when the predicate would have to
// duplicate a volatile expression, which could evaluate differently twice.
// Profitability: filtering first means the projection computes fewer rows,
// and the filter can continue towards the source; when the predicate
// references a computed column, that expression is evaluated for the
// filter as well — cheap for the scalar expressions eddy has, and the
// Calc fusion that follows usually shares the work.
type PushFilterThroughProject struct{}

// Name implements Rule.
func (PushFilterThroughProject) Name() string { return "PushFilterThroughProject" }

// Apply implements Rule.
func (PushFilterThroughProject) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, pushFilterThroughProject)
}

func pushFilterThroughProject(_ *Context, f *plan.Filter, p *plan.Project) (plan.Node, bool, error) {
	used := plan.ColsUsed(f.Pred)
	for _, it := range p.Items {
		if used.Contains(it.ID) && isVolatile(it.Expr) {
			return f, false, nil
		}
	}
	pred := substitute(f.Pred, p.Items)
	return &plan.Project{Input: &plan.Filter{Input: p.Input, Pred: pred}, Items: p.Items}, true, nil
}
