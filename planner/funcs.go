package planner

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// bindFunc binds a scalar function call: CAST, date arithmetic, EXTRACT and
// TRIM get their own forms; everything else is typed by the built-in
// registry (plan.LookupBuiltin).
func (b *Builder) bindFunc(x *ast.FuncCallExpr, c *exprCtx) (plan.Expr, error) {
	name := x.FnName.L
	switch name {
	case sql.CastFunc:
		return b.bindCast(x, c)
	case "date_add", "date_sub", "adddate", "subdate":
		if len(x.Args) != 3 {
			return nil, b.errAt(x, "%s takes a date and an interval", strings.ToUpper(x.FnName.O))
		}
		op := plan.OpAdd
		if name == "date_sub" || name == "subdate" {
			op = plan.OpSub
		}
		return b.bindDateArith(x, op, x.Args[0], x.Args[1], x.Args[2], c)
	case "timestampadd":
		// TIMESTAMPADD(unit, n, d) is DATE_ADD(d, INTERVAL n unit).
		if len(x.Args) != 3 {
			return nil, b.errAt(x, "TIMESTAMPADD takes a unit, a count and a date")
		}
		return b.bindDateArith(x, plan.OpAdd, x.Args[2], x.Args[1], x.Args[0], c)
	case "timestampdiff":
		return b.bindTimestampDiff(x, c)
	case "extract":
		if len(x.Args) != 2 {
			return nil, b.errAt(x, "EXTRACT takes a unit and a value")
		}
		u, ok := x.Args[0].(*ast.TimeUnitExpr)
		if !ok {
			return nil, b.errAt(x, "EXTRACT needs a time unit")
		}
		arg, err := b.bindExpr(x.Args[1], c)
		if err != nil {
			return nil, err
		}
		unit := &plan.Const{Val: types.StringDatum(u.Unit.String()), Typ: types.VarcharT}
		return b.callBuiltin(x, "extract", []plan.Expr{unit, arg}, []ast.Node{x.Args[0], x.Args[1]})
	case sql.ExtractFunc:
		// EXTRACT with a unit TiDB does not know: __eddy_extract('DOW', x).
		if len(x.Args) != 2 {
			return nil, b.errAt(x, "EXTRACT takes a unit and a value")
		}
		unit, err := b.bindExpr(x.Args[0], c)
		if err != nil {
			return nil, err
		}
		arg, err := b.bindExpr(x.Args[1], c)
		if err != nil {
			return nil, err
		}
		return b.callBuiltin(x, "extract", []plan.Expr{unit, arg}, []ast.Node{x.Args[0], x.Args[1]})
	case "trim":
		return b.bindTrim(x, c)
	case "json_value":
		return b.bindJSONValue(x, c)
	case "now", "current_timestamp":
		return b.bindNow(x)
	case ast.DateLiteral, ast.TimestampLiteral:
		// DATE '2024-01-02' and TIMESTAMP '2024-01-02 03:04:05.678'.
		if len(x.Args) != 1 {
			return nil, b.errAt(x, "malformed literal")
		}
		arg, err := b.bindExpr(x.Args[0], c)
		if err != nil {
			return nil, err
		}
		t := types.DateT
		if name == ast.TimestampLiteral {
			t = types.TimestampT(types.MaxFsp)
			if v, ok := x.Args[0].(*driver.ValueExpr); ok && !strings.Contains(v.GetString(), ".") {
				t = types.TimestampT(0)
			}
		}
		return b.cast(x, arg, t)
	case ast.TimeLiteral:
		return nil, b.unsupported(x, "TIME values")
	}
	args := make([]plan.Expr, len(x.Args))
	nodes := make([]ast.Node, len(x.Args))
	for i, a := range x.Args {
		e, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		args[i], nodes[i] = e, a
	}
	return b.callBuiltin(x, name, args, nodes)
}

// callBuiltin types a call with the registry and casts its arguments.
func (b *Builder) callBuiltin(x ast.Node, name string, args []plan.Expr, nodes []ast.Node) (plan.Expr, error) {
	fn, ok := plan.LookupBuiltin(name)
	if !ok {
		return nil, b.errAt(x, "unknown function %s", strings.ToUpper(name))
	}
	if len(args) < fn.MinArgs || (fn.MaxArgs >= 0 && len(args) > fn.MaxArgs) {
		want := strconv.Itoa(fn.MinArgs)
		switch {
		case fn.MaxArgs < 0:
			want = "at least " + want
		case fn.MaxArgs != fn.MinArgs:
			want += " to " + strconv.Itoa(fn.MaxArgs)
		}
		return nil, b.errAt(x, "%s takes %s arguments, got %d", strings.ToUpper(name), want, len(args))
	}
	ts := make([]types.T, len(args))
	ns := make([]bool, len(args))
	for i, a := range args {
		ts[i], ns[i] = a.Type(), a.Nullable()
	}
	want, ret, nullable, err := fn.Resolve(ts, ns)
	if err != nil {
		return nil, b.errAt(x, "%s: %v", strings.ToUpper(name), err)
	}
	for i := range args {
		if args[i], err = b.coerce(nodes[i], args[i], want[i]); err != nil {
			return nil, err
		}
	}
	return &plan.Func{Name: fn.Name, Args: args, Typ: ret, Null: nullable, Pos: b.exprPos(x)}, nil
}

func (b *Builder) bindCast(x *ast.FuncCallExpr, c *exprCtx) (plan.Expr, error) {
	if len(x.Args) != 2 {
		return nil, b.errAt(x, "malformed CAST")
	}
	v, ok := x.Args[1].(*driver.ValueExpr)
	if !ok {
		return nil, b.errAt(x, "malformed CAST")
	}
	t, err := types.Parse(v.GetString())
	if err != nil {
		return nil, b.errAt(x.Args[1], "%v", err)
	}
	arg, err := b.bindExpr(x.Args[0], c)
	if err != nil {
		return nil, err
	}
	return b.cast(x, arg, t)
}

// bindDateArith binds DATE_ADD(d, INTERVAL n unit) and its relatives (TiDB
// also parses `d + INTERVAL n unit` into them; TIMESTAMPADD(unit, n, d) is
// one too) as d op interval, with the interval a constant: date is d, count
// n and unit the unit.
func (b *Builder) bindDateArith(x *ast.FuncCallExpr, op plan.BinOp, date, count, unit ast.ExprNode, c *exprCtx) (plan.Expr, error) {
	u, ok := unit.(*ast.TimeUnitExpr)
	if !ok {
		return nil, b.errAt(x, "%s needs an interval", strings.ToUpper(x.FnName.O))
	}
	if months, ok := calendarMonths[u.Unit]; ok {
		return b.bindAddMonths(x, op, date, count, months, c)
	}
	// The front end writes MILLISECOND as MICROSECOND × 1000, the unit
	// TiDB knows; eddy keeps milliseconds.
	unitMs, perMs := int64(1), int64(1)
	if u.Unit == ast.TimeUnitMicrosecond {
		perMs = 1000
	} else if ms, ok := types.IntervalUnitMs(u.Unit.String()); ok {
		unitMs = ms
	} else {
		return nil, b.unsupported(x, "INTERVAL unit "+u.Unit.String()+" (MILLISECOND to WEEK, MONTH, QUARTER and YEAR are)")
	}
	n, err := b.bindExpr(count, c)
	if err != nil {
		return nil, err
	}
	if b.Fold == nil || !isConstTree(n) {
		return nil, b.unsupported(count, "an INTERVAL whose length is not a constant")
	}
	if n, err = b.coerce(count, n, types.BigIntT); err != nil {
		return nil, err
	}
	d, err := b.Fold(n)
	if err != nil || d.Null {
		return nil, b.errAt(count, "invalid INTERVAL length")
	}
	if d.I%perMs != 0 {
		return nil, b.errAt(count, "eddy keeps milliseconds: an INTERVAL of %d microseconds is too fine", d.I)
	}
	iv := intervalOf(d.I/perMs, unitMs, b.exprPos(count))
	base, err := b.bindExpr(date, c)
	if err != nil {
		return nil, err
	}
	return b.timeArith(x, op, base, iv)
}

// intervalOf returns the INTERVAL of n units of unitMs milliseconds: a
// constant, or, when it does not fit a BIGINT of milliseconds, n × the
// unit, which fails as out of range on every row it is evaluated for (an
// error then, like integer overflow, rather than a wrapped interval).
func intervalOf(n, unitMs int64, pos plan.Pos) plan.Expr {
	if ms := n * unitMs; ms/unitMs == n { // unitMs > 0: the product did not overflow
		return &plan.Const{Val: types.IntDatum(ms), Typ: types.IntervalT}
	}
	return &plan.Binary{Op: plan.OpMul, L: &plan.Const{Val: types.IntDatum(n), Typ: types.BigIntT},
		R: &plan.Const{Val: types.IntDatum(unitMs), Typ: types.IntervalT}, Typ: types.IntervalT, Pos: pos}
}

// bindTrim binds TRIM(s), TRIM(r FROM s) and TRIM(BOTH|LEADING|TRAILING [r] FROM s).
func (b *Builder) bindTrim(x *ast.FuncCallExpr, c *exprCtx) (plan.Expr, error) {
	var args []plan.Expr
	var nodes []ast.Node
	for i, a := range x.Args {
		if d, ok := a.(*ast.TrimDirectionExpr); ok && i == 2 {
			dir := map[ast.TrimDirectionType]string{ast.TrimBoth: "BOTH", ast.TrimLeading: "LEADING", ast.TrimTrailing: "TRAILING"}[d.Direction]
			if dir == "" {
				dir = "BOTH"
			}
			args = append(args, &plan.Const{Val: types.StringDatum(dir), Typ: types.VarcharT})
			nodes = append(nodes, a)
			continue
		}
		e, err := b.bindExpr(a, c)
		if err != nil {
			return nil, err
		}
		args, nodes = append(args, e), append(nodes, a)
	}
	return b.callBuiltin(x, "trim", args, nodes)
}

// isConstTree reports whether e has no column references and no volatile
// call (whose value a fold would freeze).
func isConstTree(e plan.Expr) bool {
	ok := true
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.ColRef, *plan.InputRef:
			ok = false
		case *plan.Func:
			ok = !plan.IsVolatile(x)
		}
		return ok
	})
	return ok
}
