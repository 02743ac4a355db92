package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// aggCtx lets expressions above an aggregate refer to its grouping
// expressions and aggregate results.
type aggCtx struct {
	groups    map[string]plan.ColumnID // restored GROUP BY expression → column
	groupCols plan.ColSet
	aggs      map[string]plan.ColumnID // restored aggregate call → result column
}

// buildAggregate binds GROUP BY and the aggregate calls: a projection
// computes the grouping expressions and aggregate arguments as columns, and
// an Aggregate groups by them.
func (b *Builder) buildAggregate(in plan.Node, sc *scope, s *ast.SelectStmt, calls []*ast.AggregateFuncExpr) (plan.Node, *aggCtx, error) {
	gctx := withApplies(&exprCtx{sc: sc, clause: "GROUP BY"})
	var pre []plan.ProjItem
	inPre := plan.ColSet{}
	addPre := func(e plan.Expr, name string) plan.ColumnID {
		if ref, ok := e.(*plan.ColRef); ok {
			if !inPre.Contains(ref.ID) {
				inPre.Add(ref.ID)
				pre = append(pre, plan.ProjItem{ID: ref.ID, Expr: ref})
			}
			return ref.ID
		}
		id := b.md.AddColumn(name, "", e.Type(), e.Nullable())
		inPre.Add(id)
		pre = append(pre, plan.ProjItem{ID: id, Expr: e})
		return id
	}
	ac := &aggCtx{groups: map[string]plan.ColumnID{}, aggs: map[string]plan.ColumnID{}}
	var group plan.ColList
	var session *windowInfo // a SESSION window grouped by, if any
	if s.GroupBy != nil {
		if s.GroupBy.Rollup {
			return nil, nil, b.unsupported(nil, "GROUP BY ... WITH ROLLUP")
		}
		for _, item := range s.GroupBy.Items {
			expr, err := b.resolveGroupItem(item.Expr, sc, s.Fields.Fields)
			if err != nil {
				return nil, nil, err
			}
			if ref := b.sessionColumn(expr, sc); ref != 0 {
				// window_start/window_end of a SESSION: the session
				// aggregate produces them.
				session = b.windowOf(ref)
				ac.groups[restore(expr)] = ref
				ac.groupCols.Add(ref)
				continue
			}
			e, err := b.bindExpr(expr, gctx)
			if err != nil {
				return nil, nil, err
			}
			id := addPre(e, e.String())
			if group.Find(id) < 0 {
				group = append(group, id)
			}
			ac.groups[restore(expr)] = id
			ac.groupCols.Add(id)
		}
	}
	var aggs []plan.AggCall
	var scaled *scaledAggs
	if call := firstScaled(calls); call != nil {
		var err error
		if in, scaled, err = b.scaledInput(in, call); err != nil {
			return nil, nil, err
		}
	}
	for _, call := range calls {
		key := restore(call)
		if _, dup := ac.aggs[key]; dup {
			continue
		}
		if scaled != nil && sql.ScaledAggregates[strings.ToLower(call.F)] {
			sums, out, err := scaled.bind(b, call, gctx, addPre)
			if err != nil {
				return nil, nil, err
			}
			ac.aggs[key] = out
			aggs = append(aggs, sums...)
			continue
		}
		a, err := b.bindAggCall(call, gctx, addPre)
		if err != nil {
			return nil, nil, err
		}
		if session != nil && a.Func == plan.AggApproxCountDistinct {
			return nil, nil, b.unsupported(call, "APPROX_COUNT_DISTINCT in a SESSION window")
		}
		ac.aggs[key] = a.Out
		aggs = append(aggs, a)
	}
	if w := b.unaggregatedSession(sc); w != nil && session == nil {
		return nil, nil, b.errAtPos(w.pos, "a SESSION window must be grouped by: GROUP BY window_start, window_end")
	}
	// Subqueries in GROUP BY and in aggregates' arguments apply to the
	// rows aggregated.
	in, err := b.attachApplies(in, gctx)
	if err != nil {
		return nil, nil, err
	}
	if session != nil {
		if !in.Props().AppendOnly {
			return nil, nil, b.errAtPos(session.pos, "SESSION windows need an append-only input (a stream); this input updates its rows")
		}
		timeCol := addPre(b.md.Ref(session.timeCol), "")
		return scaled.project(b, &plan.SessionAggregate{Input: &plan.Project{Input: in, Items: pre}, Keys: group, TimeCol: timeCol,
			Gap: session.size, Start: session.start, End: session.end, Aggs: aggs}), ac, nil
	}
	agg := &plan.Aggregate{Input: &plan.Project{Input: in, Items: pre}, Group: group, Aggs: aggs}
	b.windowClose(agg)
	return scaled.project(b, agg), ac, nil
}

// sessionColumn returns the ID of a SESSION window's window_start or
// window_end when e names one, else 0.
func (b *Builder) sessionColumn(e ast.ExprNode, sc *scope) plan.ColumnID {
	cn, ok := unparen(e).(*ast.ColumnNameExpr)
	if !ok {
		return 0
	}
	col, ambiguous, found := sc.lookup(cn.Name.Table.O, cn.Name.Name.O)
	if !found || ambiguous || !col.virtual {
		return 0
	}
	return col.id
}

// windowClose tells a windowed aggregate which grouping column says when a
// group's window closes: window_end, or window_start plus the size of a
// fixed-size (TUMBLE, HOP) window.
func (b *Builder) windowClose(agg *plan.Aggregate) {
	for _, g := range agg.Group {
		if w := b.windowOf(g); w != nil && g == w.end {
			agg.WindowClose, agg.WindowCloseOffset = g, 0
			return
		}
	}
	for _, g := range agg.Group {
		if w := b.windowOf(g); w != nil && g == w.start && w.kind != plan.Cumulate {
			agg.WindowClose, agg.WindowCloseOffset = g, w.size
			return
		}
	}
}

// resolveGroupItem turns GROUP BY 2 and GROUP BY alias into the select
// list's expression; a name that is a FROM column keeps its meaning.
func (b *Builder) resolveGroupItem(e ast.ExprNode, sc *scope, fields []*ast.SelectField) (ast.ExprNode, error) {
	switch x := unparen(e).(type) {
	case *ast.PositionExpr:
		n := x.N
		if n < 1 || n > len(fields) || fields[n-1].Expr == nil {
			return nil, b.errAt(e, "GROUP BY position %d is not in the select list", n)
		}
		return fields[n-1].Expr, nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return e, nil
		}
		if _, _, found := sc.lookup("", x.Name.Name.O); found {
			return e, nil
		}
		for _, f := range fields {
			if f.Expr != nil && strings.EqualFold(f.AsName.O, x.Name.Name.O) {
				return f.Expr, nil
			}
		}
	}
	return e, nil
}

// bindAggCall binds one aggregate call; its argument becomes a column of the
// pre-aggregation projection.
func (b *Builder) bindAggCall(call *ast.AggregateFuncExpr, c *exprCtx, addPre func(plan.Expr, string) plan.ColumnID) (plan.AggCall, error) {
	name := strings.ToLower(call.F)
	f, ok := aggFuncs[name]
	if !ok {
		f, ok = groupOnlyAggs[name]
	}
	switch {
	case f == plan.AggApproxCountDistinct:
		if call.Distinct {
			return plan.AggCall{}, b.errAt(call, "APPROX_COUNT_DISTINCT takes no DISTINCT: it counts distinct values already")
		}
	case !ok:
		return plan.AggCall{}, b.unsupported(call, "aggregate function "+strings.ToUpper(name))
	}
	if len(call.Args) != 1 {
		return plan.AggCall{}, b.errAt(call, "%s takes one argument", strings.ToUpper(name))
	}
	if call.Order != nil {
		return plan.AggCall{}, b.unsupported(call, "ORDER BY inside an aggregate")
	}
	arg := call.Args[0]
	if !call.Distinct && countsRows(f, arg) {
		return b.countStar(), nil
	}
	e, err := b.bindExpr(arg, &exprCtx{sc: c.sc, clause: "an aggregate's argument", applies: c.applies})
	if err != nil {
		return plan.AggCall{}, err
	}
	e, t, err := b.typeAggArg(f, e, arg, strings.ToUpper(name))
	if err != nil {
		return plan.AggCall{}, err
	}
	distinct := ""
	if call.Distinct {
		distinct = "DISTINCT "
	}
	text := fmt.Sprintf("%s(%s%s)", strings.ToUpper(name), distinct, e.String())
	return b.aggResult(plan.AggCall{Func: f, Distinct: call.Distinct}, addPre(e, e.String()), t, text), nil
}

// aggFuncs maps the names of the aggregate functions that run both over
// groups and over windows to theirs.
var aggFuncs = map[string]plan.AggFunc{
	"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg, "min": plan.AggMin, "max": plan.AggMax,
}

// groupOnlyAggs maps the names of the aggregate functions that run over
// groups but not over windows to theirs.
var groupOnlyAggs = map[string]plan.AggFunc{
	"approx_count_distinct": plan.AggApproxCountDistinct,
}

// countsRows reports whether aggregate f over arg counts rows: COUNT(*),
// which TiDB parses as COUNT(1), and COUNT of any other literal but NULL.
func countsRows(f plan.AggFunc, arg ast.ExprNode) bool {
	v, ok := arg.(*driver.ValueExpr)
	return ok && f == plan.AggCount && v.Kind() != driver.KindNull
}

// countStar returns a COUNT(*) call with its result column.
func (b *Builder) countStar() plan.AggCall {
	a := plan.AggCall{Func: plan.AggCountStar, Typ: plan.AggResultType(plan.AggCountStar, types.NullT), Text: "COUNT(*)"}
	a.Out = b.md.AddColumn(a.Text, "", a.Typ, false)
	return a
}

// aggResult completes the call a (its function, and whether DISTINCT)
// over the column arg, of type t, written as text: its result type and
// its result column.
func (b *Builder) aggResult(a plan.AggCall, arg plan.ColumnID, t types.T, text string) plan.AggCall {
	a.Arg, a.ArgTyp, a.Typ, a.Text = arg, t, plan.AggResultType(a.Func, t), text
	a.Out = b.md.AddColumn(a.Text, "", a.Typ, plan.AggNullable(a.Func))
	return a
}

// typeAggArg checks and converts the argument e (written as arg) of
// aggregate f, called name: SUM and AVG need a number (a BOOLEAN counts as
// one, as in MySQL: SUM counts the TRUE rows and AVG is their share), MIN
// and MAX anything but an INTERVAL; an untyped NULL becomes a BIGINT. GROUP
// BY aggregates and aggregates over a window share it.
func (b *Builder) typeAggArg(f plan.AggFunc, e plan.Expr, arg ast.ExprNode, name string) (plan.Expr, types.T, error) {
	t := e.Type()
	switch f {
	case plan.AggSum, plan.AggAvg:
		if t.Kind == types.Null || t.Kind == types.Boolean {
			e, t = &plan.Cast{Arg: e, To: types.BigIntT}, types.BigIntT
		}
		if !t.IsNumeric() {
			return nil, t, b.errAt(arg, "%s needs a numeric argument, got %s", name, t)
		}
	case plan.AggMin, plan.AggMax:
		if t.Kind == types.Null {
			e, t = &plan.Cast{Arg: e, To: types.BigIntT}, types.BigIntT
		}
		if t.Kind == types.Interval {
			return nil, t, b.errAt(arg, "%s of an INTERVAL is not supported", name)
		}
	}
	return e, t, nil
}
