package planner

import (
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// Volatile functions (NOW(), CURRENT_TIMESTAMP, PROCTIME(), RAND(),
// UUID()) are evaluated once, where a row is produced, and their value
// then travels as data (docs/dialect-notes.md):
//
//   - in a one-shot statement (a pull query, INSERT ... VALUES) NOW() is
//     the statement's start, one constant; RAND() and UUID() are per row;
//   - in a continuous query PROCTIME(), RAND() and UUID() are evaluated as
//     each row passes, which is only sound over an input that never
//     retracts (a retraction would have to repeat the value);
//   - in a continuous query NOW() may only bound a time column from below
//     in WHERE: a temporal filter (plan.TemporalFilter).

// nowAllowed is the form NOW() takes in a continuous query, for errors.
const nowAllowed = "a WHERE condition <time column> > NOW() - INTERVAL '1' HOUR (or >=, <, <=): a temporal filter"

// bindNow binds NOW([fsp]) and CURRENT_TIMESTAMP[([fsp])]: TIMESTAMP(3),
// or TIMESTAMP(fsp) for a smaller constant fsp. In a one-shot statement it
// is the statement's start (Builder.Now); in a continuous query a call that
// only a temporal filter may hold.
func (b *Builder) bindNow(x *ast.FuncCallExpr) (plan.Expr, error) {
	fsp := int64(types.MaxFsp)
	switch len(x.Args) {
	case 0:
	case 1:
		v, ok := x.Args[0].(*driver.ValueExpr)
		if !ok || v.Kind() != driver.KindInt64 && v.Kind() != driver.KindUint64 {
			return nil, b.errAt(x.Args[0], "%s takes a constant precision from 0 to 6", strings.ToUpper(x.FnName.O))
		}
		fsp = v.GetInt64()
		if fsp < 0 || fsp > 6 {
			return nil, b.errAt(x.Args[0], "%s takes a constant precision from 0 to 6, not %d", strings.ToUpper(x.FnName.O), fsp)
		}
		fsp = min(fsp, types.MaxFsp)
	default:
		return nil, b.errAt(x, "%s takes 0 to 1 arguments, got %d", strings.ToUpper(x.FnName.O), len(x.Args))
	}
	t := types.TimestampT(int(fsp))
	if b.mode == Snapshot {
		if b.Now.IsZero() {
			b.Now = time.Now()
		}
		ms := b.Now.UnixMilli()
		ms -= ms % fspUnit(int(fsp))
		return &plan.Const{Val: types.IntDatum(ms), Typ: t}, nil
	}
	return &plan.Func{Name: "now", Typ: t, Pos: b.exprPos(x)}, nil
}

// fspUnit returns the milliseconds a TIMESTAMP(fsp) value is a multiple of.
func fspUnit(fsp int) int64 {
	unit := int64(1)
	for f := fsp; f < types.MaxFsp; f++ {
		unit *= 10
	}
	return unit
}

// temporalFilters turns the conjuncts of a continuous query's WHERE that
// bound a time column by NOW() into TemporalFilters over in (after a
// Filter of the other conjuncts, so that they drop rows first). A
// conjunct with NOW() in another form stays, for checkVolatile to refuse.
func (b *Builder) temporalFilters(in plan.Node, preds []plan.Expr) (plan.Node, error) {
	var rest []plan.Expr
	var temporal []*plan.TemporalFilter
	for _, cj := range plan.Conjuncts(plan.MakeAnd(preds)) {
		tf, err := b.temporalFilter(cj)
		if err != nil {
			return nil, err
		}
		if tf == nil {
			rest = append(rest, cj)
			continue
		}
		temporal = append(temporal, tf)
	}
	if len(rest) > 0 {
		in = &plan.Filter{Input: in, Pred: plan.MakeAnd(rest)}
	}
	for _, tf := range temporal {
		tf.Input = in
		in = tf
	}
	return in, nil
}

// temporalFilter returns the TemporalFilter of a conjunct `col > NOW() [±
// INTERVAL]` (or >=, or written the other way round), nil when cj has
// another form, and a not-supported error for the forms that would delay
// rows (`col < NOW() ...`).
func (b *Builder) temporalFilter(cj plan.Expr) (*plan.TemporalFilter, error) {
	cmp, ok := cj.(*plan.Binary)
	if !ok || !cmp.Op.IsComparison() {
		return nil, nil
	}
	col, op, other := cmp.L, cmp.Op, cmp.R
	if _, isCol := col.(*plan.ColRef); !isCol {
		col, other = cmp.R, cmp.L
		switch op {
		case plan.OpGt:
			op = plan.OpLt
		case plan.OpGe:
			op = plan.OpLe
		case plan.OpLt:
			op = plan.OpGt
		case plan.OpLe:
			op = plan.OpGe
		}
	}
	ref, isCol := col.(*plan.ColRef)
	now, offset, isNow := nowPlus(other)
	if !isCol || !isNow || ref.Type().Kind != types.Timestamp {
		return nil, nil
	}
	switch op {
	case plan.OpGt, plan.OpGe, plan.OpLt, plan.OpLe:
	default:
		return nil, nil
	}
	return &plan.TemporalFilter{Col: ref.ID, Inclusive: op == plan.OpGe || op == plan.OpLe, Delay: op == plan.OpLt || op == plan.OpLe,
		Offset: offset, NowUnit: fspUnit(int(now.Typ.Fsp)), Cond: cj}, nil
}

// nowPlus matches NOW(), NOW() + INTERVAL and NOW() - INTERVAL with a
// constant interval, returning the call and the milliseconds it adds.
func nowPlus(e plan.Expr) (*plan.Func, int64, bool) {
	if f, ok := e.(*plan.Func); ok && f.Name == "now" {
		return f, 0, true
	}
	x, ok := e.(*plan.Binary)
	if !ok || x.Op != plan.OpAdd && x.Op != plan.OpSub {
		return nil, 0, false
	}
	f, ok := x.L.(*plan.Func)
	iv, isConst := x.R.(*plan.Const)
	if !ok || f.Name != "now" || !isConst || iv.Val.Null || iv.Typ.Kind != types.Interval {
		return nil, 0, false
	}
	if x.Op == plan.OpSub {
		return f, -iv.Val.I, true
	}
	return f, iv.Val.I, true
}

// checkVolatile refuses the volatile calls a continuous query cannot
// evaluate once: NOW() anywhere but in a temporal filter, and PROCTIME(),
// RAND() and UUID() anywhere but in a filter or projection over an input
// that only appends.
func (b *Builder) checkVolatile(root plan.Node) error {
	var err error
	plan.WalkNodes(root, func(n plan.Node) {
		if err != nil {
			return
		}
		var exprs []plan.Expr
		inputAppends := true
		switch n := n.(type) {
		case *plan.Filter:
			exprs, inputAppends = []plan.Expr{n.Pred}, n.Input.Props().AppendOnly
		case *plan.Project:
			for _, it := range n.Items {
				exprs = append(exprs, it.Expr)
			}
			inputAppends = n.Input.Props().AppendOnly
		case *plan.Join:
			exprs, inputAppends = []plan.Expr{n.On}, false
		}
		for _, e := range exprs {
			if e == nil {
				continue
			}
			plan.Walk(e, func(x plan.Expr) bool {
				f, ok := x.(*plan.Func)
				if err != nil || !ok || !plan.IsVolatile(f) {
					return err == nil
				}
				p := sql.Pos{Offset: f.Pos.Offset, Line: f.Pos.Line, Col: f.Pos.Col}
				name := strings.ToUpper(f.Name) + "()"
				switch {
				case f.Name == "now":
					err = b.errAtPos(p, "NOW() in a continuous query is allowed only in %s", nowAllowed)
				case !inputAppends:
					err = b.errAtPos(p, "%s over an input that retracts rows: a retraction could not repeat its value; "+
						"a continuous query may call it in SELECT or WHERE over an append-only stream", name)
				}
				return err == nil
			})
		}
	})
	return err
}
