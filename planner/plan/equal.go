package plan

import "slices"

// SameExpr reports whether a and b are the same expression: the same
// operators over the same columns and the same constants (of the same
// type, bit for bit), so they compute the same value on every row.
// Display names are ignored. Columns are the same when they have one ID,
// or, when m is not nil, when m maps a's column to b's: m relates two
// plans bound apart (SameTree). It says nothing about volatility: two
// calls of a volatile function are the same expression yet may differ in
// value.
func SameExpr(a, b Expr, m map[ColumnID]ColumnID) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case *ColRef:
		b, ok := b.(*ColRef)
		if !ok {
			return false
		}
		if m != nil {
			id, mapped := m[a.ID]
			return mapped && id == b.ID
		}
		return a.ID == b.ID
	case *InputRef:
		b, ok := b.(*InputRef)
		return ok && a.Ord == b.Ord
	case *Const:
		b, ok := b.(*Const)
		return ok && a.Typ == b.Typ && a.Val == b.Val
	case *Unary:
		b, ok := b.(*Unary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && SameExpr(a.Arg, b.Arg, m)
	case *Binary:
		b, ok := b.(*Binary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && SameExpr(a.L, b.L, m) && SameExpr(a.R, b.R, m)
	case *And:
		b, ok := b.(*And)
		return ok && SameExprs(a.Args, b.Args, m)
	case *Or:
		b, ok := b.(*Or)
		return ok && SameExprs(a.Args, b.Args, m)
	case *Not:
		b, ok := b.(*Not)
		return ok && SameExpr(a.Arg, b.Arg, m)
	case *IsNull:
		b, ok := b.(*IsNull)
		return ok && a.Negated == b.Negated && SameExpr(a.Arg, b.Arg, m)
	case *In:
		b, ok := b.(*In)
		return ok && a.Negated == b.Negated && SameExpr(a.Arg, b.Arg, m) && SameExprs(a.List, b.List, m)
	case *Like:
		b, ok := b.(*Like)
		return ok && a.Negated == b.Negated && a.Escape == b.Escape && SameExpr(a.Arg, b.Arg, m) && SameExpr(a.Pattern, b.Pattern, m)
	case *Case:
		b, ok := b.(*Case)
		if !ok || a.Typ != b.Typ || len(a.Whens) != len(b.Whens) || !SameExpr(a.Else, b.Else, m) {
			return false
		}
		for i, w := range a.Whens {
			if !SameExpr(w.Cond, b.Whens[i].Cond, m) || !SameExpr(w.Result, b.Whens[i].Result, m) {
				return false
			}
		}
		return true
	case *Cast:
		b, ok := b.(*Cast)
		return ok && a.To == b.To && a.Implicit == b.Implicit && SameExpr(a.Arg, b.Arg, m)
	case *Func:
		b, ok := b.(*Func)
		return ok && a.Name == b.Name && a.Typ == b.Typ && SameExprs(a.Args, b.Args, m)
	}
	return false
}

// SameExprs reports whether a and b are the same expressions, pairwise
// (SameExpr).
func SameExprs(a, b []Expr, m map[ColumnID]ColumnID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !SameExpr(a[i], b[i], m) {
			return false
		}
	}
	return true
}

// SameTree reports whether plans a and b, bound apart (their column IDs
// are unrelated), compute the same rows from the same inputs: the same
// operators, bottom up, over the same objects' columns, with the same
// expressions. On success m maps every column a's nodes output to b's
// column in the same place. It knows scans, filters, projections and
// aggregates; any other operator is not the same as anything, which
// errs only toward sharing less.
func SameTree(a, b Node, m map[ColumnID]ColumnID) bool {
	switch a := a.(type) {
	case *Scan:
		b, ok := b.(*Scan)
		if !ok || a.Object.ID != b.Object.ID || a.Mode != b.Mode || a.Bounded != b.Bounded ||
			a.Keep != 0 || b.Keep != 0 || !slices.Equal(a.Ords, b.Ords) {
			return false
		}
		return mapCols(a.Cols, b.Cols, m)
	case *Filter:
		b, ok := b.(*Filter)
		return ok && SameTree(a.Input, b.Input, m) && SameExpr(a.Pred, b.Pred, m)
	case *Project:
		b, ok := b.(*Project)
		return ok && SameTree(a.Input, b.Input, m) && sameItems(a.Items, b.Items, m)
	case *Calc:
		b, ok := b.(*Calc)
		return ok && SameTree(a.Input, b.Input, m) && SameExpr(a.Pred, b.Pred, m) && sameItems(a.Items, b.Items, m)
	case *Aggregate:
		b, ok := b.(*Aggregate)
		if !ok || len(a.Aggs) != len(b.Aggs) || a.EmitOnClose != b.EmitOnClose || a.WindowCloseOffset != b.WindowCloseOffset ||
			!SameTree(a.Input, b.Input, m) || len(a.Group) != len(b.Group) || !sameCol(a.WindowClose, b.WindowClose, m) {
			return false
		}
		for i, g := range a.Group {
			if !sameCol(g, b.Group[i], m) {
				return false
			}
		}
		for i, x := range a.Aggs {
			y := b.Aggs[i]
			if x.Func != y.Func || x.Distinct != y.Distinct || x.ArgTyp != y.ArgTyp || x.Typ != y.Typ || !sameCol(x.Arg, y.Arg, m) {
				return false
			}
		}
		for i, x := range a.Aggs {
			m[x.Out] = b.Aggs[i].Out
		}
		return true
	}
	return false
}

// sameCol reports whether m maps column a to b (0, no column, to 0).
func sameCol(a, b ColumnID, m map[ColumnID]ColumnID) bool {
	if a == 0 || b == 0 {
		return a == b
	}
	id, ok := m[a]
	return ok && id == b
}

// sameItems reports whether projections a and b compute the same
// expressions, in order, and maps their output columns.
func sameItems(a, b []ProjItem, m map[ColumnID]ColumnID) bool {
	if len(a) != len(b) {
		return false
	}
	for i, it := range a {
		if !SameExpr(it.Expr, b[i].Expr, m) {
			return false
		}
	}
	for i, it := range a {
		m[it.ID] = b[i].ID
	}
	return true
}

// mapCols maps columns a to b, in order.
func mapCols(a, b ColList, m map[ColumnID]ColumnID) bool {
	if len(a) != len(b) {
		return false
	}
	for i, c := range a {
		m[c] = b[i]
	}
	return true
}
