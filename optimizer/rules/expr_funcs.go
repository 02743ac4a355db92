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
	return plan.Rewrite(e, func(x plan.Expr) plan.Expr {
		if c, ok := x.(*plan.ColRef); ok {
			if r, ok := byID[c.ID]; ok {
				return r
			}
		}
		return x
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
// input (nothing in eddy's built-ins does yet; PROCTIME() will).
func isVolatile(e plan.Expr) bool {
	volatile := false
	plan.Walk(e, func(x plan.Expr) bool {
		if f, ok := x.(*plan.Func); ok && (f.Name == "proctime" || f.Name == "now" || f.Name == "rand") {
			volatile = true
		}
		return !volatile
	})
	return volatile
}

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
