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
// others. A correlated subquery — one whose WHERE refers to columns of the
// outer query — is decorrelated: those conjuncts become the join condition.
// NOT IN follows SQL: a NULL on either side makes it not true, so a row is
// dropped when the subquery returns its value or a NULL, or when it is
// NULL itself and the subquery returns anything.
func (b *Builder) buildSemiJoin(in plan.Node, sc *scope, p subqueryPred) (plan.Node, error) {
	b.md.Qualify = true
	b.outer = append(b.outer, sc)
	saved := b.correlated
	b.correlated = plan.ColSet{}
	sub, _, err := b.buildResultSet(p.query, nil)
	correlated := b.correlated
	b.outer, b.correlated = b.outer[:len(b.outer)-1], saved.Union(correlated)
	if err != nil {
		return nil, err
	}
	if sub.limit != nil {
		return nil, b.unsupported(p.node, "LIMIT in an IN or EXISTS subquery")
	}
	right := sub.node
	var conds []plan.Expr
	item := plan.Expr(nil)
	if out := right.Output(); len(out) > 0 {
		item = b.md.Ref(out[0])
	}
	if !correlated.Empty() {
		// Decorrelate SELECT items FROM r WHERE local AND correlated.
		proj, ok := right.(*plan.Project)
		if ok {
			_, grouped := proj.Input.(*plan.Aggregate)
			ok = !grouped
		}
		if !ok {
			return nil, b.unsupported(p.node, "a correlated subquery with GROUP BY, DISTINCT or set operations")
		}
		right = proj.Input
		var local []plan.Expr
		if f, ok := right.(*plan.Filter); ok {
			right = f.Input
			for _, c := range plan.Conjuncts(f.Pred) {
				if plan.ColsUsed(c).Intersects(correlated) {
					conds = append(conds, c)
				} else {
					local = append(local, c)
				}
			}
		}
		if readsAny(right, correlated) {
			return nil, b.unsupported(p.node, "a subquery that refers to the outer query outside its WHERE clause")
		}
		if len(local) > 0 {
			right = &plan.Filter{Input: right, Pred: plan.MakeAnd(local)}
		}
		if len(proj.Items) > 0 {
			item = proj.Items[0].Expr
			if p.value != nil && plan.ColsUsed(item).Intersects(correlated) {
				return nil, b.unsupported(p.node, "an IN subquery whose result refers to the outer query")
			}
		}
	}
	if p.value != nil {
		if n := len(sub.node.Output()); n != 1 {
			return nil, b.errAt(p.node, "the subquery of IN returns %d columns; it must return one", n)
		}
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
		conds = append(conds, eq)
	}
	kind := plan.SemiJoin
	if p.anti {
		kind = plan.AntiJoin
	}
	j := &plan.Join{Kind: kind, Left: in, Right: right}
	if len(conds) > 0 {
		j.On = plan.MakeAnd(conds)
	}
	return j, nil
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

// readsAny reports whether any operator of n reads one of cols.
func readsAny(n plan.Node, cols plan.ColSet) bool {
	found := false
	plan.WalkNodes(n, func(x plan.Node) {
		if plan.ColsRead(x).Intersects(cols) {
			found = true
		}
	})
	return found
}
