package rules

import (
	"github.com/eddysql/eddy/planner/plan"
)

// substitute replaces references to the columns in items by the items'
// expressions.
func substitute(e plan.Expr, items []plan.ProjItem) plan.Expr {
	byID := make(map[plan.ColumnID]plan.Expr, len(items))
	for _, it := range items {
		byID[it.ID] = it.Expr
	}
	return plan.MapColRefs(e, func(c *plan.ColRef) plan.Expr {
		if r, ok := byID[c.ID]; ok {
			return r
		}
		return c
	})
}

// isPassthrough reports whether the item forwards its input column unchanged.
func isPassthrough(it plan.ProjItem) bool {
	c, ok := it.Expr.(*plan.ColRef)
	return ok && c.ID == it.ID
}

// isIdentity reports whether items forward exactly the input's columns in order.
func isIdentity(items []plan.ProjItem, in plan.ColList) bool {
	if len(items) != len(in) {
		return false
	}
	for i, it := range items {
		if !isPassthrough(it) || it.ID != in[i] {
			return false
		}
	}
	return true
}

// isVolatile reports whether e may return different values for the same
// input (NOW(), PROCTIME(), RAND(), UUID(): plan.Builtin.Volatile). Such
// an expression is evaluated once where its row is produced: no rule may
// fold, duplicate or move it to where it would run on other rows.
func isVolatile(e plan.Expr) bool { return plan.IsVolatile(e) }

// countRefs counts references to each column in es.
func countRefs(es ...plan.Expr) map[plan.ColumnID]int {
	n := map[plan.ColumnID]int{}
	for _, e := range es {
		if e == nil {
			continue
		}
		plan.Walk(e, func(x plan.Expr) bool {
			if c, ok := x.(*plan.ColRef); ok {
				n[c.ID]++
			}
			return true
		})
	}
	return n
}

// isCheap reports whether duplicating e costs nothing worth avoiding: a
// column reference or a literal.
func isCheap(e plan.Expr) bool {
	switch e.(type) {
	case *plan.ColRef, *plan.Const:
		return true
	}
	return false
}

// rewriteExprs applies rw to the scalar expressions of n — a Filter's
// predicate, a Project's items, a Calc's predicate and items, a Join's
// condition — and rebuilds n with those rw changed. It reports false, and
// returns n, when rw changed none (or n has no expressions).
func rewriteExprs(n plan.Node, rw func(plan.Expr) (plan.Expr, bool)) (plan.Node, bool) {
	switch n := n.(type) {
	case *plan.Filter:
		if p, ok := rw(n.Pred); ok {
			return &plan.Filter{Input: n.Input, Pred: p}, true
		}
	case *plan.Project:
		if items, ok := rewriteItems(n.Items, rw); ok {
			return &plan.Project{Input: n.Input, Items: items}, true
		}
	case *plan.Calc:
		pred, pc := n.Pred, false
		if n.Pred != nil {
			if p, ok := rw(n.Pred); ok {
				pred, pc = p, true
			}
		}
		items, ic := rewriteItems(n.Items, rw)
		if !ic {
			items = n.Items
		}
		if pc || ic {
			return &plan.Calc{Input: n.Input, Pred: pred, Items: items}, true
		}
	case *plan.Join:
		if n.On == nil {
			break
		}
		if on, ok := rw(n.On); ok {
			return &plan.Join{Kind: n.Kind, Left: n.Left, Right: n.Right, On: on, Lookup: n.Lookup}, true
		}
	}
	return n, false
}

// rewriteItems applies rw to the items' expressions and returns a copy of
// items with those rw changed, or false when it changed none.
func rewriteItems(items []plan.ProjItem, rw func(plan.Expr) (plan.Expr, bool)) ([]plan.ProjItem, bool) {
	var out []plan.ProjItem
	for i, it := range items {
		e, ok := rw(it.Expr)
		if ok && out == nil {
			out = append([]plan.ProjItem(nil), items...)
		}
		if ok {
			out[i] = plan.ProjItem{ID: it.ID, Expr: e}
		}
	}
	return out, out != nil
}
