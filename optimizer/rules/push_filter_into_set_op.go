package rules

import "github.com/eddysql/eddy/planner/plan"

// PushFilterIntoSetOp moves the conjuncts of a filter above an INTERSECT or
// EXCEPT into both of its inputs, each rewritten over that input's
// columns:
//
//	Filter x > 10 (Intersect (L) (R))  ⇒  Intersect (Filter x > 10 (L)) (Filter x > 10 (R))
//
// Safety: a row's multiplicity in the result depends only on its counts in
// the two inputs, and a conjunct over the row's values keeps or drops all
// its copies on both sides alike, so filtering the inputs keeps the same
// rows with the same multiplicities (for ALL and DISTINCT, INTERSECT and
// EXCEPT: σ(A − B) = σA − σB). Retractions are filtered as their
// insertions were. A volatile conjunct (which could decide differently on
// each side) stays above, and so does one that can fail on some row
// (plan.CanFail): below, it would also see the rows the operation drops.
// Profitability: rows the filter drops are discarded before they are
// shuffled and before they cost the operation's state.
type PushFilterIntoSetOp struct{}

// Name implements Rule.
func (PushFilterIntoSetOp) Name() string { return "PushFilterIntoSetOp" }

// Apply implements Rule.
func (PushFilterIntoSetOp) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return matchOver(c, n, pushFilterIntoSetOp)
}

func pushFilterIntoSetOp(c *Context, f *plan.Filter, s *plan.SetOp) (plan.Node, bool, error) {
	var below, above []plan.Expr
	for _, cj := range plan.Conjuncts(f.Pred) {
		if isVolatile(cj) || plan.CanFail(cj) {
			above = append(above, cj)
		} else {
			below = append(below, cj)
		}
	}
	if len(below) == 0 {
		return f, false, nil
	}
	pred := plan.MakeAnd(below)
	side := func(in plan.Node, cols plan.ColList) plan.Node {
		items := make([]plan.ProjItem, len(cols))
		for i, id := range cols {
			items[i] = plan.ProjItem{ID: s.Cols[i], Expr: c.Md.Ref(id)}
		}
		return &plan.Filter{Input: in, Pred: substitute(pred, items)}
	}
	var out plan.Node = s.WithInputs(side(s.Left, s.LeftCols), side(s.Right, s.RightCols))
	if len(above) > 0 {
		out = &plan.Filter{Input: out, Pred: plan.MakeAnd(above)}
	}
	return out, true, nil
}
