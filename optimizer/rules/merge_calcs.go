package rules

import "github.com/eddysql/eddy/planner/plan"

// MergeCalcs fuses two stacked Calcs into one:
//
//	Calc filter=q project=P (Calc filter=p project=I (X))
//	  ⇒  Calc filter=p AND q[I] project=P[I] (X)
//
// where e[I] substitutes the inner projections into e.
//
// Safety: the outer Calc sees exactly the rows the inner one keeps; the
// merged predicate evaluates p first, then q over the inner projections'
// values, so it keeps the same rows, and the projections compute the same
// values. Ops pass through both. Volatile expressions are never duplicated.
// Profitability: one pass over each batch instead of two — unless an
// expensive inner projection is referenced more than once by the outer
// Calc, where inlining would repeat its work; then the rule does not apply.
type MergeCalcs struct{}

// Name implements Rule.
func (MergeCalcs) Name() string { return "MergeCalcs" }

// Apply implements Rule.
func (MergeCalcs) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, mergeCalcs)
}

func mergeCalcs(_ *Context, outer, inner *plan.Calc) (plan.Node, bool, error) {
	exprs := []plan.Expr{outer.Pred}
	for _, it := range outer.Items {
		exprs = append(exprs, it.Expr)
	}
	if !inlinable(inner.Items, countRefs(exprs...)) {
		return outer, false, nil
	}
	var pred plan.Expr
	switch {
	case outer.Pred == nil:
		pred = inner.Pred
	case inner.Pred == nil:
		pred = substitute(outer.Pred, inner.Items)
	default:
		pred = plan.MakeAnd([]plan.Expr{inner.Pred, substitute(outer.Pred, inner.Items)})
	}
	items := make([]plan.ProjItem, len(outer.Items))
	for i, it := range outer.Items {
		items[i] = plan.ProjItem{ID: it.ID, Expr: substitute(it.Expr, inner.Items)}
	}
	return &plan.Calc{Input: inner.Input, Pred: pred, Items: items}, true, nil
}
