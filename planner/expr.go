package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// exprCtx is what an expression may refer to.
type exprCtx struct {
	sc     *scope
	agg    *aggCtx // set above an aggregate: refer to groups and aggregates only
	clause string  // for messages: "WHERE", "SELECT", ...
	fields []*ast.SelectField
	noFrom bool // the SELECT has no FROM clause
	// rowNumbers maps the select list's window function calls (ROW_NUMBER()
	// and aggregates OVER a window) to their columns.
	rowNumbers map[string]plan.ColumnID
	// applies collects the applies the clause's subqueries need (nil: the
	// clause takes no subqueries); see withApplies.
	applies *[]pendingApply
}

// bindExpr binds a TiDB expression to a typed plan expression.
func (b *Builder) bindExpr(n ast.ExprNode, c *exprCtx) (plan.Expr, error) {
	if c.agg != nil {
		if id, ok := c.agg.groups[restore(n)]; ok {
			return b.md.Ref(id), nil
		}
	}
	if id, ok := b.outerAggregated(n, c.sc); ok {
		return b.md.Ref(id), nil
	}
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return b.bindExpr(x.Expr, c)
	case *ast.AggregateFuncExpr:
		if c.agg == nil {
			return nil, b.errAt(x, "aggregate function %s is not allowed in %s", strings.ToUpper(x.F), c.clause)
		}
		id, ok := c.agg.aggs[restore(x)]
		if !ok {
			return nil, b.errAt(x, "aggregate function %s is not allowed in %s", strings.ToUpper(x.F), c.clause)
		}
		return b.md.Ref(id), nil
	case *ast.ColumnNameExpr:
		return b.bindColumn(x, c)
	case *ast.BinaryOperationExpr:
		return b.bindBinary(x, c)
	case *ast.UnaryOperationExpr:
		return b.bindUnary(x, c)
	case *ast.IsNullExpr:
		arg, err := b.bindExpr(x.Expr, c)
		if err != nil {
			return nil, err
		}
		return &plan.IsNull{Arg: arg, Negated: x.Not}, nil
	case *ast.IsTruthExpr:
		return b.bindIsTruth(x, c)
	case *ast.PatternInExpr:
		return b.bindIn(x, c)
	case *ast.BetweenExpr:
		return b.bindBetween(x, c)
	case *ast.PatternLikeOrIlikeExpr:
		return b.bindLike(x, c)
	case *ast.CaseExpr:
		return b.bindCase(x, c)
	case *ast.FuncCallExpr:
		return b.bindFunc(x, c)
	case *ast.FuncCastExpr:
		t, err := castTargetFromTiDB(x)
		if err != nil {
			return nil, b.errAt(x, "%v", err)
		}
		arg, err := b.bindExpr(x.Expr, c)
		if err != nil {
			return nil, err
		}
		return b.cast(x, arg, t)
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return b.bindSubqueryExpr(x, c)
	case *ast.WindowFuncExpr:
		if id, ok := c.rowNumbers[windowText(x)]; ok {
			return b.md.Ref(id), nil
		}
		return nil, b.errAt(x, "window functions belong in the select list")
	case *ast.PatternRegexpExpr:
		return nil, b.unsupported(x, "REGEXP (use REGEXP_EXTRACT)")
	case *ast.RowExpr:
		return nil, b.unsupported(x, "row constructors")
	case *ast.VariableExpr:
		return nil, b.unsupported(x, "variables")
	case *ast.DefaultExpr:
		return nil, b.unsupported(x, "DEFAULT")
	case *ast.TimeUnitExpr:
		return nil, b.errAt(x, "a time unit (%s) is not a value", x.Unit)
	case *ast.PositionExpr:
		// The parser reads an integer in any ORDER BY as a position; only
		// the query's own GROUP BY and ORDER BY resolve one.
		return nil, b.errAt(x, "a column position (%d) is allowed only in the query's GROUP BY and ORDER BY; name the column or expression here", x.N)
	}
	if v, ok := n.(*driver.ValueExpr); ok {
		return b.bindValue(v)
	}
	return nil, b.unsupported(n, fmt.Sprintf("expression %s", restore(n)))
}

func (b *Builder) bindColumn(x *ast.ColumnNameExpr, c *exprCtx) (plan.Expr, error) {
	table, name := x.Name.Table.O, x.Name.Name.O
	col, ambiguous, found := c.sc.lookup(table, name)
	if !found {
		// A column of an enclosing query: the subquery is correlated.
		for i := len(b.outer) - 1; i >= 0; i-- {
			oc, amb, ok := b.outer[i].lookup(table, name)
			if ok && !amb {
				b.correlated.Add(oc.id)
				return b.md.Ref(oc.id), nil
			}
		}
	}
	if !found && table == "" && c.clause == "HAVING" {
		// MySQL lets HAVING name a result column by its alias.
		for _, f := range c.fields {
			if f.Expr != nil && strings.EqualFold(f.AsName.O, name) {
				return b.bindExpr(f.Expr, c)
			}
		}
	}
	if !found {
		full := name
		if table != "" {
			full = table + "." + name
			if !c.sc.hasTable(table) && !b.outerHasTable(table) {
				return nil, b.errAt(x, "unknown table '%s' in column '%s'", table, full)
			}
		}
		e := b.errAt(x, "unknown column '%s'", full)
		if s := c.sc.suggest(name); s != "" {
			e.Hint = fmt.Sprintf("did you mean '%s'?", s)
		}
		return nil, e
	}
	if ambiguous {
		return nil, b.errAt(x, "column '%s' is ambiguous: qualify it with its table", name)
	}
	if col.virtual && (c.agg == nil || !c.agg.groupCols.Contains(col.id)) {
		return nil, b.errAt(x, "%s of a SESSION window is known only after aggregation: GROUP BY window_start, window_end", name)
	}
	if c.agg != nil && !c.agg.groupCols.Contains(col.id) {
		return nil, b.errAt(x, "column '%s' must appear in the GROUP BY clause or be used in an aggregate function", name)
	}
	return b.md.Ref(col.id), nil
}

// bindBool binds a condition and converts it to BOOLEAN (a number is true
// when non-zero, as in MySQL).
func (b *Builder) bindBool(n ast.ExprNode, c *exprCtx) (plan.Expr, error) {
	e, err := b.bindExpr(n, c)
	if err != nil {
		return nil, err
	}
	return b.toBool(n, e, c.clause)
}

func (b *Builder) toBool(n ast.Node, e plan.Expr, clause string) (plan.Expr, error) {
	t := e.Type()
	switch {
	case t.Kind == types.Boolean:
		return e, nil
	case t.Kind == types.Null:
		return &plan.Const{Val: types.NullDatum, Typ: types.BoolT}, nil
	case t.IsNumeric():
		zero, err := b.coerce(n, &plan.Const{Val: types.IntDatum(0), Typ: types.BigIntT}, t)
		if err != nil {
			return nil, err
		}
		return &plan.Binary{Op: plan.OpNe, L: e, R: zero, Typ: types.BoolT, Pos: b.exprPos(n)}, nil
	}
	return nil, b.errAt(n, "%s needs a boolean condition, got %s", clause, t)
}

func (b *Builder) bindIn(x *ast.PatternInExpr, c *exprCtx) (plan.Expr, error) {
	if x.Sel != nil {
		return b.bindSubqueryExpr(x, c)
	}
	arg, err := b.bindExpr(x.Expr, c)
	if err != nil {
		return nil, err
	}
	list := make([]plan.Expr, len(x.List))
	t := arg.Type()
	for i, e := range x.List {
		if list[i], err = b.bindExpr(e, c); err != nil {
			return nil, err
		}
		if t, err = b.comparisonType(e, t, list[i].Type()); err != nil {
			return nil, err
		}
	}
	if arg, err = b.coerce(x.Expr, arg, t); err != nil {
		return nil, err
	}
	for i := range list {
		if list[i], err = b.coerce(x.List[i], list[i], t); err != nil {
			return nil, err
		}
	}
	return &plan.In{Arg: arg, List: list, Negated: x.Not}, nil
}

// bindBetween binds arg BETWEEN lo AND hi as arg >= lo AND arg <= hi,
// and NOT BETWEEN as arg < lo OR arg > hi.
func (b *Builder) bindBetween(x *ast.BetweenExpr, c *exprCtx) (plan.Expr, error) {
	es, err := b.bindExprs(c, x.Expr, x.Left, x.Right)
	if err != nil {
		return nil, err
	}
	loOp, hiOp := plan.OpGe, plan.OpLe
	if x.Not {
		loOp, hiOp = plan.OpLt, plan.OpGt
	}
	l, err := b.compare(x, loOp, es[0], es[1])
	if err != nil {
		return nil, err
	}
	r, err := b.compare(x, hiOp, es[0], es[2])
	if err != nil {
		return nil, err
	}
	if x.Not {
		return &plan.Or{Args: []plan.Expr{l, r}}, nil
	}
	return plan.MakeAnd([]plan.Expr{l, r}), nil
}

func (b *Builder) bindLike(x *ast.PatternLikeOrIlikeExpr, c *exprCtx) (plan.Expr, error) {
	es, err := b.bindExprs(c, x.Expr, x.Pattern)
	if err != nil {
		return nil, err
	}
	for i, n := range []ast.Node{x.Expr, x.Pattern} {
		if es[i], err = b.coerce(n, es[i], types.VarcharT); err != nil {
			return nil, err
		}
	}
	arg, pat := es[0], es[1]
	if !x.IsLike { // ILIKE: compare lower-cased
		arg = &plan.Func{Name: "lower", Args: []plan.Expr{arg}, Typ: types.VarcharT, Null: arg.Nullable(), Pos: b.exprPos(x)}
		pat = &plan.Func{Name: "lower", Args: []plan.Expr{pat}, Typ: types.VarcharT, Null: pat.Nullable(), Pos: b.exprPos(x)}
	}
	esc := x.Escape
	if esc == 0 {
		esc = '\\'
	}
	return &plan.Like{Arg: arg, Pattern: pat, Escape: esc, Negated: x.Not}, nil
}

// bindExprs binds each of xs in order.
func (b *Builder) bindExprs(c *exprCtx, xs ...ast.ExprNode) ([]plan.Expr, error) {
	out := make([]plan.Expr, len(xs))
	for i, x := range xs {
		e, err := b.bindExpr(x, c)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (b *Builder) bindCase(x *ast.CaseExpr, c *exprCtx) (plan.Expr, error) {
	var operand plan.Expr
	var err error
	if x.Value != nil {
		if operand, err = b.bindExpr(x.Value, c); err != nil {
			return nil, err
		}
	}
	out := &plan.Case{}
	var results []plan.Expr
	var nodes []ast.Node
	for _, w := range x.WhenClauses {
		var cond plan.Expr
		if operand != nil {
			v, err := b.bindExpr(w.Expr, c)
			if err != nil {
				return nil, err
			}
			if cond, err = b.compare(w.Expr, plan.OpEq, operand, v); err != nil {
				return nil, err
			}
		} else if cond, err = b.bindBool(w.Expr, c); err != nil {
			return nil, err
		}
		r, err := b.bindExpr(w.Result, c)
		if err != nil {
			return nil, err
		}
		out.Whens = append(out.Whens, plan.When{Cond: cond, Result: r})
		results, nodes = append(results, r), append(nodes, w.Result)
	}
	if x.ElseClause != nil {
		e, err := b.bindExpr(x.ElseClause, c)
		if err != nil {
			return nil, err
		}
		results, nodes = append(results, e), append(nodes, x.ElseClause)
	} else {
		results, nodes = append(results, &plan.Const{Val: types.NullDatum, Typ: types.NullT}), append(nodes, x)
	}
	t := types.NullT
	for i, r := range results {
		if t, err = b.unionType(nodes[i], t, r.Type()); err != nil {
			return nil, err
		}
	}
	if t.Kind == types.Null {
		t = types.VarcharT
	}
	for i := range results {
		if results[i], err = b.coerce(nodes[i], results[i], t); err != nil {
			return nil, err
		}
	}
	for i := range out.Whens {
		out.Whens[i].Result = results[i]
	}
	out.Else, out.Typ = results[len(results)-1], t
	return out, nil
}

// outerAggregated resolves n, inside a subquery, to a grouped expression or
// an aggregate of an enclosing query the subquery sits above (a subquery
// in HAVING may read GROUP BY LEFT(g, 1) or SUM(v)): a correlated
// reference to that column. As in SQL, an expression that reads a column
// of the subquery's own scope sc, or none, is the subquery's.
func (b *Builder) outerAggregated(n ast.ExprNode, sc *scope) (plan.ColumnID, bool) {
	if len(b.outerAgg) == 0 {
		return 0, false
	}
	switch n.(type) {
	case *ast.ColumnNameExpr, *driver.ValueExpr:
		return 0, false // columns resolve through the scopes; constants need no look-up
	}
	own, cols := false, 0
	n.Accept(&columnVisitor{fn: func(x *ast.ColumnNameExpr) {
		cols++
		if _, _, ok := sc.lookup(x.Name.Table.O, x.Name.Name.O); ok {
			own = true
		}
	}})
	if own || cols == 0 {
		// COUNT(*) in a subquery is the subquery's own.
		return 0, false
	}
	text := ""
	for i := len(b.outerAgg) - 1; i >= 0; i-- {
		a := b.outerAgg[i]
		if a == nil {
			continue
		}
		if text == "" {
			text = restore(n)
		}
		id, ok := a.groups[text]
		if !ok {
			if _, isAgg := n.(*ast.AggregateFuncExpr); isAgg {
				id, ok = a.aggs[text]
			}
		}
		if ok {
			b.correlated.Add(id)
			return id, true
		}
	}
	return 0, false
}

// columnVisitor calls fn on every column name of a TiDB expression.
type columnVisitor struct{ fn func(*ast.ColumnNameExpr) }

// Enter implements ast.Visitor.
func (v *columnVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		v.fn(c)
	}
	return n, false
}

// Leave implements ast.Visitor.
func (v *columnVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
