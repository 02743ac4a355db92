package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// pendingApply is an Apply a clause's subquery needs, waiting for the
// clause's input to become its left side (attachApplies).
type pendingApply struct {
	apply *plan.Apply
	node  ast.Node // the subquery, for errors
}

// withApplies returns a copy of c whose subqueries are collected, to be
// joined to the clause's input by attachApplies.
func withApplies(c *exprCtx) *exprCtx {
	cc := *c
	cc.applies = new([]pendingApply)
	return &cc
}

// attachApplies makes in the left side of the applies c's subqueries
// collected, in the order they were written, and returns the last.
func (b *Builder) attachApplies(in plan.Node, c *exprCtx) (plan.Node, error) {
	if c.applies == nil {
		return in, nil
	}
	for _, p := range *c.applies {
		if err := b.checkOuterRefs(p.node, p.apply.Right, in, c.sc); err != nil {
			return nil, err
		}
		p.apply.Left = in
		in = p.apply
	}
	*c.applies = nil
	return in, nil
}

// addApply records an apply of right for the clause c binds.
func (c *exprCtx) addApply(n ast.Node, a *plan.Apply) {
	*c.applies = append(*c.applies, pendingApply{apply: a, node: n})
}

// bindSubqueryExpr binds a subquery in an expression: a scalar subquery,
// [NOT] EXISTS, [NOT] IN, or a comparison with ANY, SOME or ALL. Each
// becomes an Apply of the clause's input (attachApplies) and an expression
// over the columns it adds:
//
//   - (SELECT e ...) is a single-row left apply: its column, NULL when the
//     subquery is empty, an error when it has more than one row.
//   - EXISTS (q) applies COUNT(*) over q: n > 0.
//   - v IN (q) and v op ANY (q) apply COUNT(*) and COUNT(x) over q, with
//     MIN(x) and MAX(x) for an order comparison, or left-join the distinct
//     values of q on v = x for IN; CASE then gives SQL's three-valued
//     answer: TRUE on a match, FALSE over an empty q, else NULL when v or
//     some x is NULL, else FALSE.
//   - v op ALL (q) is NOT (v op' ANY (q)) for the negated comparison op'.
func (b *Builder) bindSubqueryExpr(n ast.ExprNode, c *exprCtx) (plan.Expr, error) {
	if c.applies == nil {
		return nil, b.unsupported(n, "subqueries in "+c.clause)
	}
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		right, err := b.buildSubquery(x, x.Query, c.sc, c.agg)
		if err != nil {
			return nil, err
		}
		if k := len(right.Output()); k != 1 {
			return nil, b.errAt(x, "a scalar subquery returns %d columns; it must return one", k)
		}
		col := right.Output()[0]
		b.md.Column(col).Nullable = true // NULL when the subquery is empty
		c.addApply(x, &plan.Apply{Kind: plan.LeftJoin, Right: right, Single: true, Pos: b.exprPos(x)})
		return b.md.Ref(col), nil
	case *ast.ExistsSubqueryExpr:
		sq, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok {
			return nil, b.unsupported(x, "this form of EXISTS")
		}
		right, err := b.buildSubquery(x, sq.Query, c.sc, c.agg)
		if err != nil {
			return nil, err
		}
		n := b.md.AddColumn("count", "", types.BigIntT, false)
		agg := &plan.Aggregate{Input: right, Aggs: []plan.AggCall{{Func: plan.AggCountStar, Out: n, Typ: types.BigIntT, Text: "COUNT(*)"}}}
		c.addApply(x, &plan.Apply{Kind: plan.LeftJoin, Right: agg, Single: true, Pos: b.exprPos(x)})
		var e plan.Expr = &plan.Binary{Op: plan.OpGt, L: b.md.Ref(n), R: bigint(0), Typ: types.BoolT}
		if x.Not {
			e = &plan.Not{Arg: e}
		}
		return e, nil
	case *ast.PatternInExpr:
		sq, ok := x.Sel.(*ast.SubqueryExpr)
		if !ok || len(x.List) > 0 {
			return nil, b.unsupported(x, "this form of IN")
		}
		return b.bindQuantified(x, x.Expr, plan.OpEq, false, x.Not, sq.Query, c)
	case *ast.CompareSubqueryExpr:
		sq, ok := x.R.(*ast.SubqueryExpr)
		if !ok {
			return nil, b.unsupported(x, "this form of ANY or ALL")
		}
		op, ok := comparisonOps[x.Op]
		if !ok {
			return nil, b.unsupported(x, "the comparison "+x.Op.String()+" with ANY or ALL")
		}
		return b.bindQuantified(x, x.L, op, x.All, false, sq.Query, c)
	}
	return nil, b.unsupported(n, "this subquery")
}

// comparisonOps maps TiDB's comparison opcodes to plan's.
var comparisonOps = map[opcode.Op]plan.BinOp{
	opcode.EQ: plan.OpEq, opcode.NE: plan.OpNe, opcode.LT: plan.OpLt,
	opcode.LE: plan.OpLe, opcode.GT: plan.OpGt, opcode.GE: plan.OpGe,
}

// negated maps a comparison to its negation (a op b ⇔ NOT (a op' b) when
// neither is NULL).
var negated = map[plan.BinOp]plan.BinOp{
	plan.OpEq: plan.OpNe, plan.OpNe: plan.OpEq, plan.OpLt: plan.OpGe,
	plan.OpGe: plan.OpLt, plan.OpGt: plan.OpLe, plan.OpLe: plan.OpGt,
}

// bindQuantified binds v op ANY (q) — or v op ALL (q) when all, negated
// when not — as bindSubqueryExpr describes.
func (b *Builder) bindQuantified(n, value ast.ExprNode, op plan.BinOp, all, not bool, q ast.ResultSetNode, c *exprCtx) (plan.Expr, error) {
	if all {
		op, not = negated[op], !not
	}
	v, err := b.bindExpr(value, c)
	if err != nil {
		return nil, err
	}
	right, err := b.buildSubquery(n, q, c.sc, c.agg)
	if err != nil {
		return nil, err
	}
	if k := len(right.Output()); k != 1 {
		return nil, b.errAt(n, "the subquery returns %d columns; it must return one", k)
	}
	x := b.md.Ref(right.Output()[0])
	if _, err := b.compare(n, op, v, x); err != nil {
		return nil, err // incomparable types
	}
	pos := b.exprPos(n)
	// The counts: rows, and non-NULL values.
	rows := b.md.AddColumn("count", "", types.BigIntT, false)
	vals := b.md.AddColumn("count", "", types.BigIntT, false)
	aggs := []plan.AggCall{
		{Func: plan.AggCountStar, Out: rows, Typ: types.BigIntT, Text: "COUNT(*)"},
		{Func: plan.AggCount, Arg: x.ID, ArgTyp: x.Typ, Out: vals, Typ: types.BigIntT, Text: "COUNT(" + x.Name + ")"},
	}
	var match plan.Expr
	switch op {
	case plan.OpEq:
		// The distinct values of a second copy of q, joined on v = x.
		dup, err := b.buildSubquery(n, q, c.sc, c.agg)
		if err != nil {
			return nil, err
		}
		dx := b.md.Ref(dup.Output()[0])
		b.md.Column(dx.ID).Nullable = true
		distinct := &plan.Aggregate{Input: dup, Group: plan.ColList{dx.ID}}
		eq, err := b.compare(n, plan.OpEq, v, b.md.Ref(dx.ID))
		if err != nil {
			return nil, err
		}
		c.addApply(n, &plan.Apply{Kind: plan.LeftJoin, Right: distinct, On: eq, Pos: pos})
		match = &plan.Not{Arg: &plan.IsNull{Arg: b.md.Ref(dx.ID)}}
	default:
		min := b.md.AddColumn("min", "", x.Typ, true)
		max := b.md.AddColumn("max", "", x.Typ, true)
		aggs = append(aggs,
			plan.AggCall{Func: plan.AggMin, Arg: x.ID, ArgTyp: x.Typ, Out: min, Typ: x.Typ, Text: "MIN(" + x.Name + ")"},
			plan.AggCall{Func: plan.AggMax, Arg: x.ID, ArgTyp: x.Typ, Out: max, Typ: x.Typ, Text: "MAX(" + x.Name + ")"})
		cmp := func(op plan.BinOp, ext plan.ColumnID) (plan.Expr, error) {
			return b.compare(n, op, v, b.md.Ref(ext))
		}
		switch op {
		case plan.OpLt, plan.OpLe: // below some value: below the largest
			match, err = cmp(op, max)
		case plan.OpGt, plan.OpGe: // above the smallest
			match, err = cmp(op, min)
		case plan.OpNe: // some value differs: the smallest or the largest
			var lo, hi plan.Expr
			if lo, err = cmp(op, min); err == nil {
				if hi, err = cmp(op, max); err == nil {
					match = &plan.Or{Args: []plan.Expr{lo, hi}}
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	counts := &plan.Aggregate{Input: right, Aggs: aggs}
	c.addApply(n, &plan.Apply{Kind: plan.LeftJoin, Right: counts, Single: true, Pos: pos})
	boolean := func(v bool) plan.Expr { return &plan.Const{Val: types.BoolDatum(v), Typ: types.BoolT} }
	unknown := &plan.Or{Args: []plan.Expr{
		&plan.IsNull{Arg: v},
		&plan.Binary{Op: plan.OpGt, L: b.md.Ref(rows), R: b.md.Ref(vals), Typ: types.BoolT},
	}}
	var e plan.Expr = &plan.Case{
		Whens: []plan.When{
			{Cond: match, Result: boolean(true)},
			{Cond: &plan.Binary{Op: plan.OpEq, L: b.md.Ref(rows), R: bigint(0), Typ: types.BoolT}, Result: boolean(false)},
			{Cond: unknown, Result: &plan.Const{Val: types.NullDatum, Typ: types.BoolT}},
		},
		Else: boolean(false),
		Typ:  types.BoolT,
	}
	if not {
		e = &plan.Not{Arg: e}
	}
	return e, nil
}

// bigint is a BIGINT constant.
func bigint(v int64) plan.Expr {
	return &plan.Const{Val: types.IntDatum(v), Typ: types.BigIntT}
}
