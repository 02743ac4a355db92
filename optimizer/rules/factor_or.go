package rules

import (
	"github.com/eddysql/eddy/planner/plan"
)

// FactorOr takes the conjuncts every branch of a disjunction shares out of
// it, and gives an inner join the filters on one side that every branch of
// a disjunction in its condition implies:
//
//	Filter (p.k = l.k AND p.b = 'x' AND l.q < 5) OR (p.k = l.k AND p.b = 'y' AND l.q > 9)
//	  ⇒  Filter p.k = l.k AND ((p.b = 'x' AND l.q < 5) OR (p.b = 'y' AND l.q > 9))
//
// after which PushFilterIntoJoin makes p.k = l.k the join's key (TPC-H q19
// runs as an equi-join instead of a filtered product), and
//
//	Join Inner on=p.k = l.k AND ((p.b = 'x' AND l.q < 5) OR (p.b = 'y' AND l.q > 9))
//	  ⇒  Join Inner on=... (Filter p.b = 'x' OR p.b = 'y' (P)) (Filter l.q < 5 OR l.q > 9 (L))
//
// Safety: three-valued logic is a distributive lattice (AND is the
// minimum, OR the maximum of FALSE < NULL < TRUE), so (c AND a) OR (c AND
// b) equals c AND (a OR b) for every value, NULL included, and the first
// rewrite holds in projections too; when some branch is c alone, the
// disjunction is c AND (TRUE OR ...), c. A volatile conjunct is evaluated
// once per branch that reaches it, so it is never taken out. For the
// second: a pair passes the join's condition only when some branch is
// TRUE, and then that branch's conjuncts over one side are TRUE; so the
// disjunction over the branches of their side's conjuncts is TRUE for
// every row of that side that has a partner, and filtering the side by it
// removes only rows with none. It needs every branch to have a conjunct
// over the side (otherwise it implies nothing) and an inner join (an outer
// join outputs the rows without a partner). A filter already implied
// below the side is not added again.
// Profitability: an equality shared by the branches becomes a join key;
// rows that no branch can accept are dropped before they are shuffled
// and kept in join state. The disjunction itself is still tested on the
// pairs.
type FactorOr struct{}

// Name implements Rule.
func (FactorOr) Name() string { return "FactorOr" }

// Apply implements Rule.
func (FactorOr) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	if out, ok := rewriteExprs(n, factorOrs); ok {
		return out, true, nil
	}
	return match(c, n, joinSideFiltersOfOrs)
}

// factorOrs takes the shared conjuncts out of every OR in e.
func factorOrs(e plan.Expr) (plan.Expr, bool) {
	changed := false
	out := plan.Rewrite(e, func(x plan.Expr) plan.Expr {
		o, ok := x.(*plan.Or)
		if !ok {
			return x
		}
		if r, ok := factorOr(o); ok {
			changed = true
			return r
		}
		return x
	})
	return out, changed
}

// factorOr rewrites one OR whose branches share conjuncts.
func factorOr(o *plan.Or) (plan.Expr, bool) {
	branches := disjuncts(o)
	first := plan.Conjuncts(branches[0])
	var common []plan.Expr
	for _, cj := range first {
		if isVolatile(cj) || containsExpr(common, cj) {
			continue
		}
		shared := true
		for _, b := range branches[1:] {
			if !containsExpr(plan.Conjuncts(b), cj) {
				shared = false
				break
			}
		}
		if shared {
			common = append(common, cj)
		}
	}
	if len(common) == 0 {
		return o, false
	}
	var rest []plan.Expr
	for _, b := range branches {
		var left []plan.Expr
		for _, cj := range plan.Conjuncts(b) {
			if !containsExpr(common, cj) {
				left = append(left, cj)
			}
		}
		if len(left) == 0 {
			// This branch is the common conjuncts alone: the OR is TRUE
			// wherever they are.
			return plan.MakeAnd(common), true
		}
		rest = append(rest, plan.MakeAnd(left))
	}
	return plan.MakeAnd(append(common, &plan.Or{Args: rest})), true
}

// disjuncts flattens nested ORs.
func disjuncts(e plan.Expr) []plan.Expr {
	o, ok := e.(*plan.Or)
	if !ok {
		return []plan.Expr{e}
	}
	var out []plan.Expr
	for _, a := range o.Args {
		out = append(out, disjuncts(a)...)
	}
	return out
}

// containsExpr reports whether es holds an expression equal to e.
func containsExpr(es []plan.Expr, e plan.Expr) bool {
	for _, x := range es {
		if exprEqual(x, e) {
			return true
		}
	}
	return false
}

// joinSideFiltersOfOrs filters each side of an inner join by what every
// branch of a disjunction in its condition requires of that side.
func joinSideFiltersOfOrs(c *Context, j *plan.Join) (plan.Node, bool, error) {
	if j.Kind != plan.InnerJoin || j.On == nil {
		return j, false, nil
	}
	left, right := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	var toLeft, toRight []plan.Expr
	for _, cj := range plan.Conjuncts(j.On) {
		o, ok := cj.(*plan.Or)
		if !ok || isVolatile(o) {
			continue
		}
		branches := disjuncts(o)
		if f := sideFilter(branches, left); f != nil && !implied(c, j.Left, f) && !containsExpr(toLeft, f) {
			toLeft = append(toLeft, f)
		}
		if f := sideFilter(branches, right); f != nil && !implied(c, j.Right, f) && !containsExpr(toRight, f) {
			toRight = append(toRight, f)
		}
	}
	if len(toLeft)+len(toRight) == 0 {
		return j, false, nil
	}
	return &plan.Join{Kind: j.Kind, Left: filterOn(j.Left, toLeft), Right: filterOn(j.Right, toRight), On: j.On, Lookup: j.Lookup}, true, nil
}

// sideFilter returns the OR over branches of each branch's conjuncts over
// the columns of side, or nil when some branch has none.
func sideFilter(branches []plan.Expr, side plan.ColSet) plan.Expr {
	parts := make([]plan.Expr, 0, len(branches))
	for _, b := range branches {
		var mine []plan.Expr
		for _, cj := range plan.Conjuncts(b) {
			if cols := plan.ColsUsed(cj); !cols.Empty() && cols.SubsetOf(side) && !isVolatile(cj) {
				mine = append(mine, cj)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		parts = append(parts, plan.MakeAnd(mine))
	}
	for _, p := range parts[1:] {
		if !exprEqual(p, parts[0]) {
			return &plan.Or{Args: parts}
		}
	}
	return parts[0]
}
