package planner

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// intAsDecimal is the decimal type that holds every BIGINT.
var intAsDecimal = types.DecimalT(19, 0)

// bindValue types a literal: integers are BIGINT (TRUE and FALSE BOOLEAN),
// exact decimals DECIMAL(p,s) with p and s from their digits, floats DOUBLE,
// strings VARCHAR.
func (b *Builder) bindValue(v *driver.ValueExpr) (plan.Expr, error) {
	switch v.Kind() {
	case driver.KindNull:
		return &plan.Const{Val: types.NullDatum, Typ: types.NullT}, nil
	case driver.KindInt64:
		if v.Type.GetFlag()&mysql.IsBooleanFlag != 0 {
			return &plan.Const{Val: types.BoolDatum(v.GetInt64() != 0), Typ: types.BoolT}, nil
		}
		return &plan.Const{Val: types.IntDatum(v.GetInt64()), Typ: types.BigIntT}, nil
	case driver.KindUint64:
		u := v.GetUint64()
		if u <= 1<<63-1 {
			return &plan.Const{Val: types.IntDatum(int64(u)), Typ: types.BigIntT}, nil
		}
		return decimalConst(b, v, fmt.Sprint(u))
	case driver.KindFloat32, driver.KindFloat64:
		return &plan.Const{Val: types.FloatDatum(v.GetFloat64()), Typ: types.DoubleT}, nil
	case driver.KindString, driver.KindBytes:
		return &plan.Const{Val: types.StringDatum(v.GetString()), Typ: types.VarcharT}, nil
	case driver.KindMysqlDecimal:
		return decimalConst(b, v, v.GetMysqlDecimal().String())
	}
	return nil, b.unsupported(v, "this kind of literal")
}

func decimalConst(b *Builder, n ast.Node, s string) (plan.Expr, error) {
	digits := strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
	}
	prec := len(strings.Replace(digits, ".", "", 1))
	if prec < scale {
		prec = scale
	}
	if prec == 0 {
		prec = 1
	}
	if prec > types.MaxDecimalPrecision {
		return nil, b.errAt(n, "decimal literal %s has more than %d digits", s, types.MaxDecimalPrecision)
	}
	num, err := decimal128.FromString(s, int32(prec), int32(scale))
	if err != nil {
		return nil, b.errAt(n, "invalid decimal literal %s", s)
	}
	return &plan.Const{Val: types.DecimalDatum(num), Typ: types.DecimalT(prec, scale)}, nil
}

// decimalOf returns the decimal type that holds t exactly (integers as
// DECIMAL(19,0)).
func decimalOf(t types.T) types.T {
	if t.Kind == types.Decimal {
		return t
	}
	return intAsDecimal
}

// commonDecimal is the smallest decimal holding both a and b exactly.
func commonDecimal(a, b types.T) types.T {
	a, b = decimalOf(a), decimalOf(b)
	s := max(a.Scale, b.Scale)
	intDigits := max(int(a.Precision)-int(a.Scale), int(b.Precision)-int(b.Scale))
	return types.DecimalT(min(intDigits+int(s), types.MaxDecimalPrecision), int(s))
}

// numericType is the type two numeric operands are computed in.
func numericType(a, b types.T) types.T {
	switch {
	case a.Physical() == types.PhysFloat64 || b.Physical() == types.PhysFloat64:
		return types.DoubleT
	case a.Kind == types.Decimal || b.Kind == types.Decimal:
		return commonDecimal(a, b)
	}
	return types.BigIntT
}

// comparisonType is the type two operands are compared in.
func (b *Builder) comparisonType(n ast.Node, x, y types.T) (types.T, error) {
	switch {
	case x.Kind == types.Null:
		return y, nil
	case y.Kind == types.Null:
		return x, nil
	case x.Kind == types.JSON && y.Kind == types.Varchar, y.Kind == types.JSON && x.Kind == types.Varchar:
		return types.JSONT, nil // the string is a JSON string (compare)
	case x.Physical() == y.Physical() && x.Kind != types.Decimal:
		if x.Kind == types.Timestamp && y.Fsp > x.Fsp {
			return y, nil
		}
		return x, nil
	case x.IsNumeric() && y.IsNumeric():
		return numericType(x, y), nil
	case x.Kind == types.Boolean && y.IsNumeric(), y.Kind == types.Boolean && x.IsNumeric():
		return numericType(boolAsInt(x), boolAsInt(y)), nil
	case x.IsTemporal() && y.IsTemporal():
		return types.TimestampT(int(max(x.Fsp, y.Fsp))), nil
	case x.IsTemporal() && y.Kind == types.Varchar:
		return x, nil
	case y.IsTemporal() && x.Kind == types.Varchar:
		return y, nil
	case x.Kind == types.Varchar && y.IsNumeric(), y.Kind == types.Varchar && x.IsNumeric():
		return types.DoubleT, nil // MySQL compares a string with a number as doubles
	case x.Kind == types.Varchar && y.Kind == types.Boolean, y.Kind == types.Varchar && x.Kind == types.Boolean:
		return types.BoolT, nil
	}
	if x.Kind == types.JSON || y.Kind == types.JSON {
		return types.UnknownT, b.errAt(n, "cannot compare %s with %s (JSON_VALUE(doc, path RETURNING type) reads a typed value)", x, y)
	}
	return types.UnknownT, b.errAt(n, "cannot compare %s with %s", x, y)
}

func boolAsInt(t types.T) types.T {
	if t.Kind == types.Boolean {
		return types.BigIntT
	}
	return t
}

// unionType is the type of a value that may come from either operand
// (CASE branches, COALESCE): numbers widen, anything mixed with a string
// becomes a string, dates widen to timestamps.
func (b *Builder) unionType(n ast.Node, x, y types.T) (types.T, error) {
	switch {
	case x.Kind == types.Null:
		return y, nil
	case y.Kind == types.Null:
		return x, nil
	case x == y:
		return x, nil
	case x.Kind == types.JSON || y.Kind == types.JSON:
		if x.Kind == types.Varchar || y.Kind == types.Varchar {
			return types.VarcharT, nil // JSON's text
		}
	case x.Physical() == y.Physical() && x.Kind != types.Decimal:
		if x.IsInteger() {
			return types.BigIntT, nil
		}
		if x.Kind == types.Timestamp {
			return types.TimestampT(int(max(x.Fsp, y.Fsp))), nil
		}
		return x, nil
	case x.IsNumeric() && y.IsNumeric():
		return numericType(x, y), nil
	case x.Kind == types.Varchar || y.Kind == types.Varchar:
		return types.VarcharT, nil
	case x.IsTemporal() && y.IsTemporal():
		return types.TimestampT(int(max(x.Fsp, y.Fsp))), nil
	}
	return types.UnknownT, b.errAt(n, "%s and %s have no common type", x, y)
}

// compare binds a comparison, casting both operands to their comparison type.
func (b *Builder) compare(n ast.Node, op plan.BinOp, l, r plan.Expr) (plan.Expr, error) {
	t, err := b.comparisonType(n, l.Type(), r.Type())
	if err != nil {
		return nil, err
	}
	if t.Kind == types.Null {
		t = types.BoolT
	}
	if t.Kind == types.JSON {
		// A string compared with JSON is a JSON string, as in MySQL:
		// doc->'$.name' = 'ann' holds for {"name": "ann"}.
		quote := func(e plan.Expr) plan.Expr {
			if e.Type().Kind != types.Varchar {
				return e
			}
			return &plan.Func{Name: "json_quote", Args: []plan.Expr{e}, Typ: types.JSONT, Null: e.Nullable(), Pos: b.exprPos(n)}
		}
		l, r = quote(l), quote(r)
	}
	return b.binary(n, op, l, t, r, t, types.BoolT)
}

// binary coerces l to lt and r to rt and applies op to them, giving a t.
func (b *Builder) binary(n ast.Node, op plan.BinOp, l plan.Expr, lt types.T, r plan.Expr, rt types.T, t types.T) (plan.Expr, error) {
	var err error
	if l, err = b.coerce(n, l, lt); err != nil {
		return nil, err
	}
	if r, err = b.coerce(n, r, rt); err != nil {
		return nil, err
	}
	return &plan.Binary{Op: op, L: l, R: r, Typ: t, Pos: b.exprPos(n)}, nil
}

// arith binds an arithmetic operator.
func (b *Builder) arith(n ast.Node, op plan.BinOp, l, r plan.Expr) (plan.Expr, error) {
	lt, rt := l.Type(), r.Type()
	// Time arithmetic: TIMESTAMP ± INTERVAL, INTERVAL + TIMESTAMP.
	if op == plan.OpAdd && lt.Kind == types.Interval && (rt.IsTemporal() || rt.Kind == types.Varchar) {
		l, r, lt, rt = r, l, rt, lt
	}
	if rt.Kind == types.Interval && (op == plan.OpAdd || op == plan.OpSub) {
		return b.timeArith(n, op, l, r)
	}
	if lt.Kind == types.Interval || rt.Kind == types.Interval || lt.IsTemporal() || rt.IsTemporal() {
		return nil, b.errAt(n, "cannot apply %s to %s and %s", op, lt, rt)
	}
	// Strings are numbers in arithmetic (as in MySQL); NULL takes the
	// other operand's type.
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
		return nil, b.errAt(n, "cannot apply %s to %s and %s", op, lt, rt)
	}
	var t, operand types.T
	switch op {
	case plan.OpDiv:
		t, operand = types.DoubleT, types.DoubleT
	case plan.OpIntDiv:
		if !norm(lt).IsInteger() || !norm(rt).IsInteger() {
			return b.divTruncated(n, l, r)
		}
		t, operand = types.BigIntT, types.BigIntT
	case plan.OpMul:
		t = numericType(norm(lt), norm(rt))
		operand = t
		if t.Kind == types.Decimal {
			// DECIMAL multiplication takes operands of any scale; its
			// result carries both scales.
			a, c := decimalOf(norm(lt)), decimalOf(norm(rt))
			p := min(int(a.Precision)+int(c.Precision), types.MaxDecimalPrecision)
			t = types.DecimalT(p, min(int(a.Scale)+int(c.Scale), p))
			return b.binary(n, op, l, a, r, c, t)
		}
	default:
		t = numericType(norm(lt), norm(rt))
		if t.Kind == types.Decimal && (op == plan.OpAdd || op == plan.OpSub) {
			// One more integer digit for the carry.
			t = types.DecimalT(min(int(t.Precision)+1, types.MaxDecimalPrecision), int(t.Scale))
		}
		operand = t
	}
	return b.binary(n, op, l, operand, r, operand, t)
}

// divTruncated binds a DIV b over non-integers as MySQL computes it: the
// quotient truncated toward zero, as a BIGINT (7.5 DIV 2 = 3, -7.5 DIV 2 =
// -3): CAST(CASE WHEN q >= 0 THEN FLOOR(q) ELSE CEIL(q) END AS BIGINT) with
// q = a / b, which is NULL when b is 0.
func (b *Builder) divTruncated(n ast.Node, l, r plan.Expr) (plan.Expr, error) {
	q, err := b.arith(n, plan.OpDiv, l, r)
	if err != nil {
		return nil, err
	}
	zero := &plan.Const{Val: types.FloatDatum(0), Typ: types.DoubleT}
	floor, err := b.callBuiltin(n, "floor", []plan.Expr{q}, []ast.Node{n})
	if err != nil {
		return nil, err
	}
	ceil, err := b.callBuiltin(n, "ceil", []plan.Expr{q}, []ast.Node{n})
	if err != nil {
		return nil, err
	}
	trunc := &plan.Case{
		Whens: []plan.When{{Cond: &plan.Binary{Op: plan.OpGe, L: q, R: zero, Typ: types.BoolT, Pos: b.exprPos(n)}, Result: floor}},
		Else:  ceil, Typ: types.DoubleT,
	}
	return &plan.Cast{Arg: trunc, To: types.BigIntT, Pos: b.exprPos(n)}, nil
}

// timeArith binds DATE/TIMESTAMP ± INTERVAL. A DATE stays a DATE when the
// interval is a whole number of days (as MySQL), else becomes a TIMESTAMP.
func (b *Builder) timeArith(n ast.Node, op plan.BinOp, l, r plan.Expr) (plan.Expr, error) {
	lt := l.Type()
	var err error
	switch lt.Kind {
	case types.Varchar, types.Null:
		if l, err = b.coerce(n, l, types.TimestampT(types.MaxFsp)); err != nil {
			return nil, err
		}
		lt = l.Type()
	case types.Date:
		if c, ok := r.(*plan.Const); !ok || c.Val.Null || c.Val.I%types.MsPerDay != 0 {
			if l, err = b.coerce(n, l, types.TimestampT(0)); err != nil {
				return nil, err
			}
			lt = types.TimestampT(0)
		}
	case types.Timestamp:
	default:
		return nil, b.errAt(n, "cannot apply %s to %s and INTERVAL", op, lt)
	}
	if lt.Kind == types.Timestamp {
		if c, ok := r.(*plan.Const); ok && !c.Val.Null && c.Val.I%1000 != 0 && lt.Fsp < types.MaxFsp {
			lt = types.TimestampT(types.MaxFsp)
		}
	}
	return &plan.Binary{Op: op, L: l, R: r, Typ: lt, Pos: b.exprPos(n)}, nil
}

// coerce casts e to t when its representation differs (integer kinds share
// int64 and timestamps share milliseconds, so those need no cast).
func (b *Builder) coerce(n ast.Node, e plan.Expr, t types.T) (plan.Expr, error) {
	from := e.Type()
	if from == t {
		return e, nil
	}
	if from.Kind == types.Null {
		if _, ok := e.(*plan.Const); ok {
			return &plan.Const{Val: types.NullDatum, Typ: t}, nil
		}
		return &plan.Cast{Arg: e, To: t, Pos: b.exprPos(n)}, nil
	}
	if from.Physical() == t.Physical() && t.Kind != types.Decimal && from.Kind != types.Boolean && t.Kind != types.JSON {
		if t.Kind != types.Timestamp || from.Fsp <= t.Fsp {
			return e, nil
		}
	}
	out, err := b.cast(n, e, t)
	if c, ok := out.(*plan.Cast); ok && from.Kind == types.Varchar && t.Kind == types.Double {
		c.Implicit = true // MySQL reads a string's numeric prefix here
	}
	return out, err
}

// cast builds an explicit or implicit conversion, refusing the ones that
// make no sense.
func (b *Builder) cast(n ast.Node, e plan.Expr, t types.T) (plan.Expr, error) {
	from := e.Type()
	if out, done, err := b.castJSON(n, e, from, t); done {
		return out, err
	}
	if !castable(from, t) {
		return nil, b.errAt(n, "cannot cast %s to %s", from, t)
	}
	if c, ok := e.(*plan.Const); ok && c.Val.Null {
		return &plan.Const{Val: types.NullDatum, Typ: t}, nil
	}
	if from == t {
		return e, nil
	}
	return &plan.Cast{Arg: e, To: t, Pos: b.exprPos(n)}, nil
}

// castable reports whether a value of type from can be converted to to.
func castable(from, to types.T) bool {
	switch {
	case from.Kind == types.Null || from == to || to.Kind == types.Varchar || from.Kind == types.Varchar || to.Kind == types.JSON || from.Kind == types.JSON:
		return to.Kind != types.Interval || from.Kind == types.Interval || from.Kind == types.Null
	case from.IsNumeric() || from.Kind == types.Boolean:
		return to.IsNumeric() || to.Kind == types.Boolean
	case from.IsTemporal():
		return to.IsTemporal()
	}
	return false
}

// castTargetFromTiDB reads the target type of a TiDB CAST node (used only
// when eddy's front end did not rewrite the cast).
func castTargetFromTiDB(x *ast.FuncCastExpr) (types.T, error) {
	ft := x.Tp
	switch ft.GetType() {
	case mysql.TypeLonglong:
		return types.BigIntT, nil
	case mysql.TypeDouble, mysql.TypeFloat:
		return types.DoubleT, nil
	case mysql.TypeNewDecimal:
		return types.FromName("DECIMAL", []int{ft.GetFlen(), ft.GetDecimal()})
	case mysql.TypeVarString, mysql.TypeString, mysql.TypeVarchar:
		return types.VarcharT, nil
	case mysql.TypeDate:
		return types.DateT, nil
	case mysql.TypeDatetime, mysql.TypeTimestamp:
		fsp := ft.GetDecimal()
		if fsp < 0 {
			fsp = 0
		}
		return types.FromName("TIMESTAMP", []int{fsp})
	}
	return types.UnknownT, fmt.Errorf("not supported yet: CAST to %s", ft.String())
}
