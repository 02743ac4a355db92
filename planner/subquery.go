package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/eddysql/eddy/planner/plan"
)

// subqueryPred is a WHERE conjunct that tests a subquery: [NOT] EXISTS
// (query) or value [NOT] IN (query). It becomes a semi join (an anti join
// when negated) of the FROM clause with the subquery.
type subqueryPred struct {
	node  ast.ExprNode
	anti  bool
	value ast.ExprNode // nil for EXISTS
	query ast.ResultSetNode
}

// splitWhere splits a WHERE clause into its subquery predicates and the
// other conjuncts, in order.
func splitWhere(e ast.ExprNode) (preds []subqueryPred, rest []ast.ExprNode) {
	var visit func(e ast.ExprNode, not bool)
	visit = func(e ast.ExprNode, not bool) {
		switch x := e.(type) {
		case *ast.ParenthesesExpr:
			visit(x.Expr, not)
			return
		case *ast.BinaryOperationExpr:
			if x.Op == opcode.LogicAnd && !not {
				visit(x.L, false)
				visit(x.R, false)
				return
			}
		case *ast.UnaryOperationExpr:
			if x.Op == opcode.Not {
				if p, ok := asSubqueryPred(x.V, !not); ok {
					p.node = e
					preds = append(preds, p)
					return
				}
			}
		default:
			if p, ok := asSubqueryPred(e, not); ok {
				preds = append(preds, p)
				return
			}
		}
		rest = append(rest, e)
	}
	visit(e, false)
	return preds, rest
}

func asSubqueryPred(e ast.ExprNode, not bool) (subqueryPred, bool) {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expr
	}
	switch x := e.(type) {
	case *ast.ExistsSubqueryExpr:
		if sq, ok := x.Sel.(*ast.SubqueryExpr); ok {
			return subqueryPred{node: e, anti: x.Not != not, query: sq.Query}, true
		}
	case *ast.PatternInExpr:
		if sq, ok := x.Sel.(*ast.SubqueryExpr); ok && len(x.List) == 0 {
			return subqueryPred{node: e, anti: x.Not != not, value: x.Expr, query: sq.Query}, true
		}
	}
	return subqueryPred{}, false
}

// buildSemiJoin joins in (whose columns sc names) with a subquery
// predicate: EXISTS keeps the rows of in for which the subquery has a row,
// IN those whose value the subquery returns; NOT EXISTS and NOT IN keep the
// others. It builds a semi or anti Apply; a correlated subquery is
// decorrelated by the optimizer's rules (PullApplyFilter, UnnestApply).
// NOT IN follows SQL: a NULL on either side makes it not true, so a row is
// dropped when the subquery returns its value or a NULL, or when it is
// NULL itself and the subquery returns anything.
func (b *Builder) buildSemiJoin(in plan.Node, sc *scope, p subqueryPred) (plan.Node, error) {
	right, err := b.buildSubquery(p.node, p.query, sc, nil)
	if err != nil {
		return nil, err
	}
	kind := plan.SemiJoin
	if p.anti {
		kind = plan.AntiJoin
	}
	a := &plan.Apply{Kind: kind, Left: in, Right: right, Pos: b.exprPos(p.node)}
	if p.value != nil {
		if n := len(right.Output()); n != 1 {
			return nil, b.errAt(p.node, "the subquery of IN returns %d columns; it must return one", n)
		}
		item := b.md.Ref(right.Output()[0])
		v, err := b.bindExpr(p.value, &exprCtx{sc: sc, clause: "WHERE"})
		if err != nil {
			return nil, err
		}
		eq, err := b.compare(p.node, plan.OpEq, v, item)
		if err != nil {
			return nil, err
		}
		if p.anti && (v.Nullable() || item.Nullable()) {
			// NOT IN: any NULL on either side makes the comparison unknown.
			eq = &plan.Or{Args: []plan.Expr{eq, &plan.IsNull{Arg: v}, &plan.IsNull{Arg: item}}}
		}
		a.On = eq
	}
	if err := b.checkOuterRefs(p.node, a.Right, in, sc); err != nil {
		return nil, err
	}
	return a, nil
}

// buildSubquery binds a subquery whose enclosing query's columns sc names
// (they become its outer references), above the enclosing query's
// aggregation agg when not nil.
func (b *Builder) buildSubquery(n ast.Node, q ast.ResultSetNode, sc *scope, agg *aggCtx) (plan.Node, error) {
	b.md.Qualify = true
	b.outer = append(b.outer, sc)
	b.outerAgg = append(b.outerAgg, agg)
	defer func() { b.outerAgg = b.outerAgg[:len(b.outerAgg)-1] }()
	saved := b.correlated
	b.correlated = plan.ColSet{}
	sub, _, err := b.buildResultSet(q, nil)
	correlated := b.correlated
	b.outer, b.correlated = b.outer[:len(b.outer)-1], saved.Union(correlated)
	if err != nil {
		return nil, err
	}
	if sub.limit != nil {
		return nil, b.unsupported(n, "LIMIT without ORDER BY in a subquery")
	}
	return sub.node, nil
}

// checkOuterRefs fails when the subquery sub refers to a column of the
// enclosing query (whose columns sc names) that in, the input the subquery
// is applied to, no longer has: a column neither grouped nor aggregated,
// referred to from HAVING or the select list of an aggregating query.
func (b *Builder) checkOuterRefs(n ast.Node, sub, in plan.Node, sc *scope) error {
	refs := plan.OuterCols(sub)
	if refs.Empty() {
		return nil
	}
	have := plan.OutputSet(in)
	for _, c := range sc.cols {
		if refs.Contains(c.id) && !have.Contains(c.id) {
			return b.errAt(n, "the subquery refers to column '%s', which must appear in the GROUP BY clause or be used in an aggregate function", c.name)
		}
	}
	return nil
}

// outerHasTable reports whether an enclosing query names table.
func (b *Builder) outerHasTable(table string) bool {
	for _, o := range b.outer {
		if o.hasTable(table) {
			return true
		}
	}
	return false
}
