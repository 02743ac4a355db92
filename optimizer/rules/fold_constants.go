package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// FoldConstants evaluates constant sub-expressions once, at plan time, and
// simplifies boolean connectives with constant operands:
//
//	Filter price > 10 * 5 AND TRUE  ⇒  Filter price > 50
//
// Safety: a sub-expression is folded only when it has no column references
// and no volatile function, so it yields the same value for every row; it is
// evaluated by the same kernels that run queries (Context.Fold). When the
// evaluation fails (say CAST('x' AS INT)) the expression is left alone, so
// the error surfaces at run time exactly as it would have. TRUE AND x ⇒ x,
// FALSE AND x ⇒ FALSE, TRUE OR x ⇒ TRUE and FALSE OR x ⇒ x hold in
// three-valued logic for every x, NULL included. A strict operator (+, =, …)
// with a NULL operand is NULL.
//
// Profitability: always — work moves from every row to planning.
type FoldConstants struct{}

// Name implements Rule.
func (FoldConstants) Name() string { return "FoldConstants" }

// Apply implements Rule.
func (FoldConstants) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	if _, ok := n.(*plan.Join); ok {
		// It folds filters and projections; join conditions stay as written.
		return n, false, nil
	}
	out, ok := rewriteExprs(n, func(e plan.Expr) (plan.Expr, bool) { return fold(c, e) })
	return out, ok, nil
}

// fold returns the folded expression and whether anything changed.
func fold(c *Context, e plan.Expr) (plan.Expr, bool) {
	changed := false
	out := plan.Rewrite(e, func(x plan.Expr) plan.Expr {
		r := foldNode(c, x)
		if r != x {
			changed = true
		}
		return r
	})
	return out, changed
}

func foldNode(c *Context, x plan.Expr) plan.Expr {
	switch x := x.(type) {
	case *plan.Const, *plan.ColRef, *plan.InputRef:
		return x
	case *plan.And:
		return simplifyConnective(x, x.Args, false)
	case *plan.Or:
		return simplifyConnective(x, x.Args, true)
	case *plan.Binary:
		if x.Op != plan.OpNullSafeEq && (isNullConst(x.L) || isNullConst(x.R)) {
			return &plan.Const{Val: types.NullDatum, Typ: x.Typ}
		}
	}
	if c.Fold == nil {
		return x
	}
	for _, k := range x.Children() {
		if !plan.IsConst(k) {
			return x
		}
	}
	// Its children are constants, so x alone decides volatility: the
	// check costs one node, not the whole subtree at every level of a
	// deeply nested expression.
	if isVolatile(x) {
		return x
	}
	d, err := c.Fold(x)
	if err != nil {
		return x
	}
	return &plan.Const{Val: d, Typ: x.Type()}
}

// simplifyConnective drops neutral constants from an AND (isOr false) or OR
// and short-circuits on an absorbing one; it returns x itself when there is
// nothing to simplify.
func simplifyConnective(x plan.Expr, args []plan.Expr, isOr bool) plan.Expr {
	var kept []plan.Expr
	for _, a := range args {
		if b, ok := boolConst(a); ok {
			if b == isOr { // TRUE in an OR, FALSE in an AND
				return &plan.Const{Val: types.BoolDatum(b), Typ: types.BoolT}
			}
			continue // the neutral element
		}
		kept = append(kept, a)
	}
	switch {
	case len(kept) == len(args):
		return x
	case len(kept) == 0:
		return &plan.Const{Val: types.BoolDatum(!isOr), Typ: types.BoolT}
	case len(kept) == 1:
		return kept[0]
	case isOr:
		return &plan.Or{Args: kept}
	}
	return &plan.And{Args: kept}
}

func boolConst(e plan.Expr) (bool, bool) {
	c, ok := e.(*plan.Const)
	if !ok || c.Val.Null || c.Typ.Kind != types.Boolean {
		return false, false
	}
	return c.Val.Bool(), true
}

func isNullConst(e plan.Expr) bool {
	c, ok := e.(*plan.Const)
	return ok && c.Val.Null
}
