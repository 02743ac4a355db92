package rules

import (
	"sort"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// OrderConjuncts puts the conjuncts of a filter (a Filter's or a Calc's
// predicate) in increasing rank, (selectivity - 1) / cost: the executor
// evaluates each conjunct only over the rows the earlier ones kept, so a
// cheap conjunct that drops many rows goes first and an expensive one that
// drops few goes last:
//
//	Calc filter=url LIKE '%x%' AND price > 10 AND auction = 7
//	  ⇒  Calc filter=auction = 7 AND price > 10 AND url LIKE '%x%'
//
// Selectivities come from the catalog's statistics when known (an equality
// keeps one of a column's distinct values), the defaults otherwise; costs
// from cost.ExprCost.
//
// Safety: AND is commutative over TRUE, FALSE and NULL, so the rows kept do
// not change — except that a conjunct that can fail on some rows (a cast
// of a string, integer arithmetic that can overflow, a function) may be
// guarded by the conjuncts before it, which drop those rows first. Such a
// conjunct keeps its place, and the others are reordered only within the
// runs between two of them, so every conjunct still sees at most the rows
// it saw before.
// Profitability: the order minimizes the expected per-row cost of the
// filter (cost.FilterCost) for independent conjuncts; it fires only when
// that cost falls.
type OrderConjuncts struct{}

// Name implements Rule.
func (OrderConjuncts) Name() string { return "OrderConjuncts" }

// Apply implements Rule.
func (OrderConjuncts) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	var pred plan.Expr
	switch x := n.(type) {
	case *plan.Filter:
		pred = x.Pred
	case *plan.Calc:
		pred = x.Pred
	}
	if pred == nil {
		return n, false, nil
	}
	conj := plan.Conjuncts(pred)
	if len(conj) < 2 {
		return n, false, nil
	}
	ordered := OrderByRank(c.Cost, conj)
	if !costlier(c.Cost, conj, ordered) {
		return n, false, nil
	}
	switch x := n.(type) {
	case *plan.Filter:
		return &plan.Filter{Input: x.Input, Pred: plan.MakeAnd(ordered)}, true, nil
	case *plan.Calc:
		return &plan.Calc{Input: x.Input, Pred: plan.MakeAnd(ordered), Items: x.Items}, true, nil
	}
	return n, false, nil
}

// OrderByRank returns conj sorted by increasing rank within each run of
// conjuncts that cannot fail, the ones that can fail staying in place.
func OrderByRank(est *cost.Estimator, conj []plan.Expr) []plan.Expr {
	out := append([]plan.Expr(nil), conj...)
	rank := func(e plan.Expr) float64 { return cost.Rank(est.Selectivity(e), cost.ExprCost(e)) }
	start := 0
	for i := 0; i <= len(out); i++ {
		if i < len(out) && !plan.CanFail(out[i]) {
			continue
		}
		run := out[start:i]
		sort.SliceStable(run, func(a, b int) bool { return rank(run[a]) < rank(run[b]) })
		start = i + 1
	}
	return out
}

// costlier reports whether evaluating conj in its order costs more than
// in the order better.
func costlier(est *cost.Estimator, conj, better []plan.Expr) bool {
	expected := func(es []plan.Expr) float64 {
		sels, costs := make([]float64, len(es)), make([]float64, len(es))
		for i, e := range es {
			sels[i], costs[i] = est.Selectivity(e), cost.ExprCost(e)
		}
		return cost.FilterCost(sels, costs)
	}
	return expected(better) < expected(conj)*(1-1e-9)
}
