package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// buildSelect binds one SELECT: FROM, WHERE, GROUP BY and aggregates,
// HAVING, the select list, DISTINCT, ORDER BY and LIMIT.
func (b *Builder) buildSelect(s *ast.SelectStmt) (*built, *scope, error) {
	if s.Kind != ast.SelectStmtKindSelect {
		return nil, nil, b.unsupported(nil, "TABLE and VALUES statements")
	}
	if s.LockInfo != nil || s.SelectIntoOpt != nil {
		return nil, nil, b.unsupported(nil, "SELECT ... FOR UPDATE / INTO")
	}
	if len(s.WindowSpecs) > 0 {
		return nil, nil, b.unsupported(nil, "named windows (WINDOW clause)")
	}
	if s.With != nil {
		if s.With.IsRecursive {
			return nil, nil, b.unsupported(nil, "recursive common table expressions")
		}
		saved := b.ctes
		b.ctes = map[string]*ast.CommonTableExpression{}
		for k, v := range saved {
			b.ctes[k] = v
		}
		for _, cte := range s.With.CTEs {
			b.ctes[strings.ToLower(cte.Name.O)] = cte
		}
		defer func() { b.ctes = saved }()
	}

	var in plan.Node
	sc := &scope{}
	if s.From == nil {
		in = &plan.Values{Rows: [][]types.Datum{{}}}
	} else {
		var err error
		if in, sc, err = b.buildFrom(s.From.TableRefs); err != nil {
			return nil, nil, err
		}
	}
	if s.Where != nil {
		subs, rest := splitWhere(s.Where)
		for _, p := range subs {
			var err error
			if in, err = b.buildSemiJoin(in, sc, p); err != nil {
				return nil, nil, err
			}
		}
		var preds []plan.Expr
		wctx := withApplies(&exprCtx{sc: sc, clause: "WHERE"})
		for _, r := range rest {
			pred, err := b.bindBool(r, wctx)
			if err != nil {
				return nil, nil, err
			}
			preds = append(preds, pred)
		}
		var err error
		if in, err = b.attachApplies(in, wctx); err != nil {
			return nil, nil, err
		}
		switch {
		case len(preds) > 0 && b.mode == Continuous:
			var err error
			if in, err = b.temporalFilters(in, preds); err != nil {
				return nil, nil, err
			}
		case len(preds) > 0:
			in = &plan.Filter{Input: in, Pred: plan.MakeAnd(preds)}
		}
	}

	sel := &exprCtx{sc: sc, clause: "SELECT", fields: s.Fields.Fields, noFrom: s.From == nil}
	aggNodes := collectAggs(s)
	if len(aggNodes) > 0 || s.GroupBy != nil {
		node, ac, err := b.buildAggregate(in, sc, s, aggNodes)
		if err != nil {
			return nil, nil, err
		}
		in, sel.agg = node, ac
	}
	if w := b.unaggregatedSession(sc); w != nil && sel.agg == nil {
		return nil, nil, b.errAtPos(w.pos, "a SESSION window must be aggregated: GROUP BY window_start, window_end (and the keys of the sessions)")
	}
	if s.Having != nil {
		if sel.agg == nil {
			return nil, nil, b.errAt(s.Having.Expr, "HAVING needs GROUP BY or an aggregate function")
		}
		hctx := withApplies(sel)
		hctx.clause = "HAVING"
		pred, err := b.bindBool(s.Having.Expr, hctx)
		if err != nil {
			return nil, nil, err
		}
		if in, err = b.attachApplies(in, hctx); err != nil {
			return nil, nil, err
		}
		in = &plan.Filter{Input: in, Pred: pred}
	}

	in, windowCols, err := b.buildWindowFuncs(in, s.Fields.Fields, sel)
	if err != nil {
		return nil, nil, err
	}
	sel.rowNumbers = windowCols
	fctx := withApplies(sel)
	items, names, exprs, err := b.bindFields(s.Fields.Fields, fctx)
	if err != nil {
		return nil, nil, err
	}
	if in, err = b.attachApplies(in, fctx); err != nil {
		return nil, nil, err
	}
	var node plan.Node = &plan.Project{Input: in, Items: items}
	if s.Distinct {
		node = &plan.Aggregate{Input: node, Group: node.Output()}
	}
	out := &built{node: node, names: names}
	if s.OrderBy != nil {
		sel.clause = "ORDER BY"
		if err := b.buildOrderBy(out, s, sel, exprs); err != nil {
			return nil, nil, err
		}
	}
	if s.Limit != nil && !out.topN {
		lim, err := b.buildLimit(s.Limit, out.node)
		if err != nil {
			return nil, nil, err
		}
		out.limit = lim
	}
	outSc := &scope{}
	for i, id := range out.node.Output() {
		outSc.cols = append(outSc.cols, scopeCol{name: names[i], id: id})
	}
	return out, outSc, nil
}

// bindFields binds the select list into projection items with their names;
// exprs keeps each item's TiDB expression (nil for * columns) for ORDER BY.
func (b *Builder) bindFields(fields []*ast.SelectField, c *exprCtx) ([]plan.ProjItem, []string, []ast.ExprNode, error) {
	var items []plan.ProjItem
	var names []string
	var exprs []ast.ExprNode
	used := plan.ColSet{}
	add := func(e plan.Expr, name string, src ast.ExprNode) {
		id := plan.ColumnID(0)
		ref, isRef := e.(*plan.ColRef)
		switch {
		case isRef && !used.Contains(ref.ID) && strings.EqualFold(ref.Name, name):
			id = ref.ID // pass the column through under its own ID
		case isRef && !used.Contains(ref.ID) && b.md.Column(ref.ID).Table == "":
			// A computed column (an aggregate, a subquery's expression)
			// takes the alias as its name instead of being copied.
			id = ref.ID
			b.md.Column(id).Name = name
			e = b.md.Ref(id)
		default:
			id = b.md.AddColumn(name, "", e.Type(), e.Nullable())
			if isRef {
				b.aliasWindow(ref.ID, id)
			}
		}
		used.Add(id)
		items = append(items, plan.ProjItem{ID: id, Expr: e})
		names = append(names, name)
		exprs = append(exprs, src)
	}
	for _, f := range fields {
		if f.WildCard != nil {
			if c.noFrom {
				return nil, nil, nil, b.errAtPos(b.src.Pos(f.Offset), "SELECT * needs a FROM clause")
			}
			table := f.WildCard.Table.O
			if table != "" && !c.sc.hasTable(table) {
				return nil, nil, nil, b.errAtPos(b.namePos(table), "unknown table '%s' in %s.*", table, table)
			}
			for _, col := range c.sc.cols {
				if col.hidden || (table != "" && !strings.EqualFold(col.table, table)) || (table == "" && col.qualifiedOnly) {
					continue
				}
				if c.agg != nil && !c.agg.groupCols.Contains(col.id) {
					return nil, nil, nil, b.errAtPos(b.start, "column '%s' must appear in the GROUP BY clause or be used in an aggregate function", col.name)
				}
				add(b.md.Ref(col.id), col.name, nil)
			}
			continue
		}
		e, err := b.bindExpr(f.Expr, c)
		if err != nil {
			return nil, nil, nil, err
		}
		if e.Type().Kind == types.Null {
			// An untyped NULL result is a VARCHAR, as PostgreSQL types it.
			e = &plan.Const{Val: types.NullDatum, Typ: types.VarcharT}
		}
		add(e, b.fieldName(f), f.Expr)
	}
	return items, names, exprs, nil
}

// fieldName is a result column's name: its alias, the column it reads, or
// its text as written (as MySQL names columns).
func (b *Builder) fieldName(f *ast.SelectField) string {
	if f.AsName.O != "" {
		return f.AsName.O
	}
	if cn, ok := unparen(f.Expr).(*ast.ColumnNameExpr); ok {
		return cn.Name.Name.O
	}
	// The front end gave the field the text the user wrote (undoing its
	// rewrites of CAST, EXTRACT, ...).
	if t := strings.TrimSpace(f.Text()); t != "" {
		return t
	}
	return restore(f.Expr)
}

func unparen(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

// collector finds the nodes of type T in a TiDB tree (aggregate calls,
// window functions), descending neither into them nor into subqueries.
type collector[T ast.Node] struct{ found []T }

// Enter records a T and skips the children of Ts and of subqueries.
func (v *collector[T]) Enter(n ast.Node) (ast.Node, bool) {
	if x, ok := n.(T); ok {
		v.found = append(v.found, x)
		return n, true
	}
	_, sub := n.(*ast.SubqueryExpr)
	return n, sub
}

// Leave implements ast.Visitor.
func (v *collector[T]) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// collectAggs finds the aggregate calls of a SELECT's select list, HAVING
// and ORDER BY.
func collectAggs(s *ast.SelectStmt) []*ast.AggregateFuncExpr {
	v := &collector[*ast.AggregateFuncExpr]{}
	for _, f := range s.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if s.Having != nil {
		s.Having.Expr.Accept(v)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	return v.found
}
