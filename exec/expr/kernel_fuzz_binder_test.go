package expr_test

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// The typing rules of the binder (planner/coerce.go), restated so that
// generated expressions have exactly the shapes the binder gives the
// kernels: operands cast to their common type, DECIMAL sums one digit
// wider, DATE ± INTERVAL a DATE only for whole days, and so on.

// castable reports whether the binder casts a value of type from to to.
func castable(from, to types.T) bool {
	switch {
	case from.Kind == types.Null || from == to || to.Kind == types.Varchar || from.Kind == types.Varchar:
		return to.Kind != types.Interval || from.Kind == types.Interval || from.Kind == types.Null
	case from.IsNumeric() || from.Kind == types.Boolean:
		return to.IsNumeric() || to.Kind == types.Boolean
	case from.IsTemporal():
		return to.IsTemporal()
	}
	return false
}

// coerce converts e to t as the binder does (no cast where the
// representation is shared); ok is false when no conversion exists.
func coerce(e plan.Expr, t types.T) (plan.Expr, bool) {
	from := e.Type()
	if from == t {
		return e, true
	}
	if from.Kind == types.Null {
		if _, ok := e.(*plan.Const); ok {
			return &plan.Const{Val: types.NullDatum, Typ: t}, true
		}
		return &plan.Cast{Arg: e, To: t}, true
	}
	if from.Physical() == t.Physical() && t.Kind != types.Decimal && from.Kind != types.Boolean &&
		(t.Kind != types.Timestamp || from.Fsp <= t.Fsp) {
		return e, true
	}
	if !castable(from, t) {
		return nil, false
	}
	if c, ok := e.(*plan.Const); ok && c.Val.Null {
		return &plan.Const{Val: types.NullDatum, Typ: t}, true
	}
	return &plan.Cast{Arg: e, To: t, Implicit: from.Kind == types.Varchar && t.Kind == types.Double}, true
}

// explicitCast is CAST(e AS t) as the binder builds it.
func explicitCast(e plan.Expr, t types.T) (plan.Expr, bool) {
	if !castable(e.Type(), t) {
		return nil, false
	}
	if c, ok := e.(*plan.Const); ok && c.Val.Null {
		return &plan.Const{Val: types.NullDatum, Typ: t}, true
	}
	if e.Type() == t {
		return e, true
	}
	return &plan.Cast{Arg: e, To: t}, true
}

func decimalOf(t types.T) types.T {
	if t.Kind == types.Decimal {
		return t
	}
	return types.DecimalT(19, 0)
}

func commonDecimal(a, b types.T) types.T {
	a, b = decimalOf(a), decimalOf(b)
	s := max(a.Scale, b.Scale)
	intDigits := max(int(a.Precision)-int(a.Scale), int(b.Precision)-int(b.Scale))
	return types.DecimalT(min(intDigits+int(s), types.MaxDecimalPrecision), int(s))
}

func numericType(a, b types.T) types.T {
	switch {
	case a.Physical() == types.PhysFloat64 || b.Physical() == types.PhysFloat64:
		return types.DoubleT
	case a.Kind == types.Decimal || b.Kind == types.Decimal:
		return commonDecimal(a, b)
	}
	return types.BigIntT
}

func boolAsInt(t types.T) types.T {
	if t.Kind == types.Boolean {
		return types.BigIntT
	}
	return t
}

// comparisonType is the type two operands are compared in.
func comparisonType(x, y types.T) (types.T, bool) {
	switch {
	case x.Kind == types.Null:
		return y, true
	case y.Kind == types.Null:
		return x, true
	case x.Physical() == y.Physical() && x.Kind != types.Decimal:
		if x.Kind == types.Timestamp && y.Fsp > x.Fsp {
			return y, true
		}
		return x, true
	case x.IsNumeric() && y.IsNumeric():
		return numericType(x, y), true
	case x.Kind == types.Boolean && y.IsNumeric(), y.Kind == types.Boolean && x.IsNumeric():
		return numericType(boolAsInt(x), boolAsInt(y)), true
	case x.IsTemporal() && y.IsTemporal():
		return types.TimestampT(int(max(x.Fsp, y.Fsp))), true
	case x.IsTemporal() && y.Kind == types.Varchar:
		return x, true
	case y.IsTemporal() && x.Kind == types.Varchar:
		return y, true
	case x.Kind == types.Varchar && y.IsNumeric(), y.Kind == types.Varchar && x.IsNumeric():
		return types.DoubleT, true
	case x.Kind == types.Varchar && y.Kind == types.Boolean, y.Kind == types.Varchar && x.Kind == types.Boolean:
		return types.BoolT, true
	}
	return types.UnknownT, false
}

// unionType is the type of a value that may come from either operand.
func unionType(x, y types.T) (types.T, bool) {
	switch {
	case x.Kind == types.Null:
		return y, true
	case y.Kind == types.Null, x == y:
		return x, true
	case x.Physical() == y.Physical() && x.Kind != types.Decimal:
		if x.IsInteger() {
			return types.BigIntT, true
		}
		if x.Kind == types.Timestamp {
			return types.TimestampT(int(max(x.Fsp, y.Fsp))), true
		}
		return x, true
	case x.IsNumeric() && y.IsNumeric():
		return numericType(x, y), true
	case x.Kind == types.Varchar || y.Kind == types.Varchar:
		return types.VarcharT, true
	case x.IsTemporal() && y.IsTemporal():
		return types.TimestampT(int(max(x.Fsp, y.Fsp))), true
	}
	return types.UnknownT, false
}

// compare binds l op r.
func compare(op plan.BinOp, l, r plan.Expr) plan.Expr {
	t, ok := comparisonType(l.Type(), r.Type())
	if !ok {
		return nil
	}
	if t.Kind == types.Null {
		t = types.BoolT
	}
	l, lok := coerce(l, t)
	r, rok := coerce(r, t)
	if !lok || !rok {
		return nil
	}
	return &plan.Binary{Op: op, L: l, R: r, Typ: types.BoolT}
}

// toBool converts a condition to BOOLEAN (a number is true when non-zero).
func toBool(e plan.Expr) plan.Expr {
	t := e.Type()
	switch {
	case t.Kind == types.Boolean:
		return e
	case t.Kind == types.Null:
		return &plan.Const{Val: types.NullDatum, Typ: types.BoolT}
	case t.IsNumeric():
		zero, _ := coerce(&plan.Const{Val: types.IntDatum(0), Typ: types.BigIntT}, t)
		return &plan.Binary{Op: plan.OpNe, L: e, R: zero, Typ: types.BoolT}
	}
	return nil
}

// arith binds l op r for numbers (strings and booleans converted).
func arith(op plan.BinOp, l, r plan.Expr) plan.Expr {
	lt, rt := l.Type(), r.Type()
	norm := func(t types.T) types.T {
		switch t.Kind {
		case types.Varchar:
			return types.DoubleT
		case types.Boolean, types.Null:
			return types.BigIntT
		}
		return t
	}
	if !norm(lt).IsNumeric() || !norm(rt).IsNumeric() {
		return nil
	}
	var t, operand types.T
	switch op {
	case plan.OpDiv:
		t, operand = types.DoubleT, types.DoubleT
	case plan.OpIntDiv:
		if !norm(lt).IsInteger() || !norm(rt).IsInteger() {
			return divTruncated(l, r)
		}
		t, operand = types.BigIntT, types.BigIntT
	case plan.OpMul:
		t = numericType(norm(lt), norm(rt))
		operand = t
		if t.Kind == types.Decimal {
			a, c := decimalOf(norm(lt)), decimalOf(norm(rt))
			p := min(int(a.Precision)+int(c.Precision), types.MaxDecimalPrecision)
			t = types.DecimalT(p, min(int(a.Scale)+int(c.Scale), p))
			l, lok := coerce(l, a)
			r, rok := coerce(r, c)
			if !lok || !rok {
				return nil
			}
			return &plan.Binary{Op: op, L: l, R: r, Typ: t}
		}
	default:
		t = numericType(norm(lt), norm(rt))
		if t.Kind == types.Decimal && (op == plan.OpAdd || op == plan.OpSub) {
			t = types.DecimalT(min(int(t.Precision)+1, types.MaxDecimalPrecision), int(t.Scale))
		}
		operand = t
	}
	l, lok := coerce(l, operand)
	r, rok := coerce(r, operand)
	if !lok || !rok {
		return nil
	}
	return &plan.Binary{Op: op, L: l, R: r, Typ: t}
}

// divTruncated binds a DIV b over non-integers: the double quotient
// truncated toward zero, as a BIGINT.
func divTruncated(l, r plan.Expr) plan.Expr {
	q := arith(plan.OpDiv, l, r)
	if q == nil {
		return nil
	}
	zero := &plan.Const{Val: types.FloatDatum(0), Typ: types.DoubleT}
	floor, ceil := call("floor", q), call("ceil", q)
	if floor == nil || ceil == nil {
		return nil
	}
	trunc := &plan.Case{
		Whens: []plan.When{{Cond: &plan.Binary{Op: plan.OpGe, L: q, R: zero, Typ: types.BoolT}, Result: floor}},
		Else:  ceil, Typ: types.DoubleT,
	}
	return &plan.Cast{Arg: trunc, To: types.BigIntT}
}

// timeArith binds DATE/TIMESTAMP ± INTERVAL.
func timeArith(op plan.BinOp, l, r plan.Expr) plan.Expr {
	lt := l.Type()
	var ok bool
	switch lt.Kind {
	case types.Varchar, types.Null:
		if l, ok = coerce(l, types.TimestampT(types.MaxFsp)); !ok {
			return nil
		}
		lt = l.Type()
	case types.Date:
		if c, isConst := r.(*plan.Const); !isConst || c.Val.Null || c.Val.I%types.MsPerDay != 0 {
			if l, ok = coerce(l, types.TimestampT(0)); !ok {
				return nil
			}
			lt = types.TimestampT(0)
		}
	case types.Timestamp:
	default:
		return nil
	}
	if lt.Kind == types.Timestamp {
		if c, isConst := r.(*plan.Const); isConst && !c.Val.Null && c.Val.I%1000 != 0 && lt.Fsp < types.MaxFsp {
			lt = types.TimestampT(types.MaxFsp)
		}
	}
	return &plan.Binary{Op: op, L: l, R: r, Typ: lt}
}

// call binds a call of a built-in function: typed by its Resolve rule,
// arguments cast to the types it wants. nil when the call does not bind.
func call(name string, args ...plan.Expr) plan.Expr {
	b, ok := plan.LookupBuiltin(name)
	if !ok || len(args) < b.MinArgs || (b.MaxArgs >= 0 && len(args) > b.MaxArgs) {
		return nil
	}
	ts := make([]types.T, len(args))
	ns := make([]bool, len(args))
	for i, a := range args {
		ts[i], ns[i] = a.Type(), a.Nullable()
	}
	want, ret, nullable, err := b.Resolve(ts, ns)
	if err != nil {
		return nil
	}
	out := make([]plan.Expr, len(args))
	for i, a := range args {
		if out[i], ok = coerce(a, want[i]); !ok {
			return nil
		}
	}
	return &plan.Func{Name: b.Name, Args: out, Typ: ret, Null: nullable}
}
