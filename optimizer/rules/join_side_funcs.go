package rules

import "github.com/eddysql/eddy/planner/plan"

// unmatchedDroppable reports on which sides of a join of kind k a row
// that matches no row of the other side may be dropped before the join
// without changing its output: both sides of an inner or semi join, the
// right side of a left or anti join (the anti join keeps the left rows
// that have no match, and a dropped right row matched none), the left
// side of a right join. A side the join preserves (padding its unmatched
// rows with NULLs) keeps every row.
func unmatchedDroppable(k plan.JoinKind) (left, right bool) {
	left = k == plan.InnerJoin || k == plan.RightJoin || k == plan.SemiJoin
	right = k == plan.InnerJoin || k == plan.LeftJoin || k == plan.SemiJoin || k == plan.AntiJoin
	return left, right
}

// conjunctPlaces says where the conjuncts over a join's columns may go.
type conjunctPlaces struct {
	// left and right admit the conjuncts over one side's columns only to
	// that side; both admits those over both sides' columns together.
	left, right, both bool
}

// sortConjuncts sorts the conjuncts conj, over j's columns, by the place
// they may go: over the left side's columns only to left when the left
// place admits them, over the right side's to right likewise, over
// columns of both sides to both; volatile conjuncts, conjuncts without
// columns and those no place admits stay. Each list keeps conj's order.
func sortConjuncts(conj []plan.Expr, j *plan.Join, places conjunctPlaces) (left, right, both, stay []plan.Expr) {
	lcols, rcols := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	for _, cj := range conj {
		cols := plan.ColsUsed(cj)
		switch {
		case isVolatile(cj) || cols.Empty():
			stay = append(stay, cj)
		case places.left && cols.SubsetOf(lcols):
			left = append(left, cj)
		case places.right && cols.SubsetOf(rcols):
			right = append(right, cj)
		case places.both && cols.SubsetOf(lcols.Union(rcols)):
			both = append(both, cj)
		default:
			stay = append(stay, cj)
		}
	}
	return left, right, both, stay
}

// filterOn filters n by conj (n itself when conj is empty).
func filterOn(n plan.Node, conj []plan.Expr) plan.Node {
	if len(conj) == 0 {
		return n
	}
	return &plan.Filter{Input: n, Pred: plan.MakeAnd(conj)}
}

// addConjuncts filters n by conj, extending n's own filter when it has one.
func addConjuncts(n plan.Node, conj []plan.Expr) plan.Node {
	if len(conj) == 0 {
		return n
	}
	if f, ok := n.(*plan.Filter); ok {
		return &plan.Filter{Input: f.Input, Pred: plan.MakeAnd(append(plan.Conjuncts(f.Pred), conj...))}
	}
	return &plan.Filter{Input: n, Pred: plan.MakeAnd(conj)}
}
