package rules

import "github.com/eddysql/eddy/planner/plan"

// exprEqual reports whether a and b are the same expression: the same
// operators over the same columns (by ID) and the same constants (of the
// same type, bit for bit), so they compute the same value on every row.
// Display names are ignored. It says nothing about volatility: two calls
// of a volatile function are equal expressions yet may differ in value.
func exprEqual(a, b plan.Expr) bool {
	switch a := a.(type) {
	case *plan.ColRef:
		b, ok := b.(*plan.ColRef)
		return ok && a.ID == b.ID
	case *plan.InputRef:
		b, ok := b.(*plan.InputRef)
		return ok && a.Ord == b.Ord
	case *plan.Const:
		b, ok := b.(*plan.Const)
		return ok && a.Typ == b.Typ && a.Val == b.Val
	case *plan.Unary:
		b, ok := b.(*plan.Unary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && exprEqual(a.Arg, b.Arg)
	case *plan.Binary:
		b, ok := b.(*plan.Binary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && exprEqual(a.L, b.L) && exprEqual(a.R, b.R)
	case *plan.And:
		b, ok := b.(*plan.And)
		return ok && exprsEqual(a.Args, b.Args)
	case *plan.Or:
		b, ok := b.(*plan.Or)
		return ok && exprsEqual(a.Args, b.Args)
	case *plan.Not:
		b, ok := b.(*plan.Not)
		return ok && exprEqual(a.Arg, b.Arg)
	case *plan.IsNull:
		b, ok := b.(*plan.IsNull)
		return ok && a.Negated == b.Negated && exprEqual(a.Arg, b.Arg)
	case *plan.In:
		b, ok := b.(*plan.In)
		return ok && a.Negated == b.Negated && exprEqual(a.Arg, b.Arg) && exprsEqual(a.List, b.List)
	case *plan.Like:
		b, ok := b.(*plan.Like)
		return ok && a.Negated == b.Negated && a.Escape == b.Escape && exprEqual(a.Arg, b.Arg) && exprEqual(a.Pattern, b.Pattern)
	case *plan.Case:
		b, ok := b.(*plan.Case)
		if !ok || a.Typ != b.Typ || len(a.Whens) != len(b.Whens) || !exprEqual(a.Else, b.Else) {
			return false
		}
		for i, w := range a.Whens {
			if !exprEqual(w.Cond, b.Whens[i].Cond) || !exprEqual(w.Result, b.Whens[i].Result) {
				return false
			}
		}
		return true
	case *plan.Cast:
		b, ok := b.(*plan.Cast)
		return ok && a.To == b.To && a.Implicit == b.Implicit && exprEqual(a.Arg, b.Arg)
	case *plan.Func:
		b, ok := b.(*plan.Func)
		return ok && a.Name == b.Name && a.Typ == b.Typ && exprsEqual(a.Args, b.Args)
	}
	return false
}

func exprsEqual(a, b []plan.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !exprEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
