package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// calendarMonths are the interval units of no fixed length, in months.
var calendarMonths = map[ast.TimeUnitType]int64{
	ast.TimeUnitMonth: 1, ast.TimeUnitQuarter: 3, ast.TimeUnitYear: 12,
}

// bindAddMonths binds date ± INTERVAL n unit for a unit of months (MONTH,
// QUARTER, YEAR) as ADD_MONTHS(date, ±n × months): the calendar fields
// move and the day is clamped to the new month's last, as MySQL does.
// The count may be any integer expression.
func (b *Builder) bindAddMonths(x *ast.FuncCallExpr, op plan.BinOp, date, count ast.ExprNode, months int64, c *exprCtx) (plan.Expr, error) {
	n, err := b.bindExpr(count, c)
	if err != nil {
		return nil, err
	}
	if n, err = b.coerce(count, n, types.BigIntT); err != nil {
		return nil, err
	}
	if months != 1 {
		n = &plan.Binary{Op: plan.OpMul, L: n, R: &plan.Const{Val: types.IntDatum(months), Typ: types.BigIntT}, Typ: types.BigIntT, Pos: b.exprPos(count)}
	}
	if op == plan.OpSub {
		n = &plan.Unary{Op: plan.OpNeg, Arg: n, Typ: types.BigIntT, Pos: b.exprPos(count)}
	}
	base, err := b.bindExpr(date, c)
	if err != nil {
		return nil, err
	}
	return b.callBuiltin(x, "add_months", []plan.Expr{base, n}, []ast.Node{date, count})
}

// bindTimestampDiff binds TIMESTAMPDIFF(unit, a, b) as
// timestampdiff('UNIT', a, b): b − a in whole units, truncated toward
// zero; MONTH, QUARTER and YEAR count calendar months.
func (b *Builder) bindTimestampDiff(x *ast.FuncCallExpr, c *exprCtx) (plan.Expr, error) {
	if len(x.Args) != 3 {
		return nil, b.errAt(x, "TIMESTAMPDIFF takes a unit and two times")
	}
	u, ok := x.Args[0].(*ast.TimeUnitExpr)
	if !ok {
		return nil, b.errAt(x, "TIMESTAMPDIFF needs a time unit")
	}
	switch u.Unit {
	case ast.TimeUnitMicrosecond, ast.TimeUnitSecond, ast.TimeUnitMinute, ast.TimeUnitHour, ast.TimeUnitDay,
		ast.TimeUnitWeek, ast.TimeUnitMonth, ast.TimeUnitQuarter, ast.TimeUnitYear:
	default:
		return nil, b.unsupported(x.Args[0], "TIMESTAMPDIFF unit "+u.Unit.String())
	}
	unit := &plan.Const{Val: types.StringDatum(u.Unit.String()), Typ: types.VarcharT}
	args := []plan.Expr{unit}
	for _, a := range x.Args[1:] {
		e, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return b.callBuiltin(x, "timestampdiff", args, []ast.Node{x.Args[0], x.Args[1], x.Args[2]})
}
