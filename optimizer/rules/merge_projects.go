package rules

import "github.com/eddysql/eddy/planner/plan"

// MergeProjects composes two stacked projections into one:
//
//	Project a + 1 AS b (Project x * 2 AS a (X))  ⇒  Project x * 2 + 1 AS b (X)
//
// Safety: projections are per-row functions, so their composition computes
// the same values; volatile expressions are never duplicated.
// Profitability: one operator and one intermediate batch less — unless an
// expensive inner expression is referenced more than once by the outer
// projection, in which case inlining would compute it repeatedly and the
// rule does not apply.
type MergeProjects struct{}

// Name implements Rule.
func (MergeProjects) Name() string { return "MergeProjects" }

// Apply implements Rule.
func (MergeProjects) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, mergeProjects)
}

func mergeProjects(_ *Context, outer, inner *plan.Project) (plan.Node, bool, error) {
	exprs := make([]plan.Expr, len(outer.Items))
	for i, it := range outer.Items {
		exprs[i] = it.Expr
	}
	if !inlinable(inner.Items, countRefs(exprs...)) {
		return outer, false, nil
	}
	items := make([]plan.ProjItem, len(outer.Items))
	for i, it := range outer.Items {
		items[i] = plan.ProjItem{ID: it.ID, Expr: substitute(it.Expr, inner.Items)}
	}
	return &plan.Project{Input: inner.Input, Items: items}, true, nil
}

// inlinable reports whether substituting items into expressions with the
// given reference counts duplicates no expensive or volatile expression.
func inlinable(items []plan.ProjItem, refs map[plan.ColumnID]int) bool {
	for _, it := range items {
		k := refs[it.ID]
		if k == 0 || isCheap(it.Expr) {
			continue
		}
		if k > 1 || isVolatile(it.Expr) {
			return false
		}
	}
	return true
}
