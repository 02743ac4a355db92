package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// This file binds the operators: comparisons, arithmetic, AND/OR/XOR
// chains, unary minus and NOT, and IS [NOT] TRUE/FALSE.

func (b *Builder) bindBinary(x *ast.BinaryOperationExpr, c *exprCtx) (plan.Expr, error) {
	switch x.Op {
	case opcode.LogicAnd, opcode.LogicOr:
		return b.bindConnective(x, c)
	case opcode.LogicXor:
		l, err := b.bindBool(x.L, c)
		if err != nil {
			return nil, err
		}
		r, err := b.bindBool(x.R, c)
		if err != nil {
			return nil, err
		}
		return &plan.Binary{Op: plan.OpNe, L: l, R: r, Typ: types.BoolT, Pos: b.exprPos(x)}, nil // XOR of booleans
	}
	es, err := b.bindExprs(c, x.L, x.R)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
		op := map[opcode.Op]plan.BinOp{opcode.EQ: plan.OpEq, opcode.NE: plan.OpNe, opcode.LT: plan.OpLt,
			opcode.LE: plan.OpLe, opcode.GT: plan.OpGt, opcode.GE: plan.OpGe, opcode.NullEQ: plan.OpNullSafeEq}[x.Op]
		return b.compare(x, op, es[0], es[1])
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
		op := map[opcode.Op]plan.BinOp{opcode.Plus: plan.OpAdd, opcode.Minus: plan.OpSub, opcode.Mul: plan.OpMul,
			opcode.Div: plan.OpDiv, opcode.IntDiv: plan.OpIntDiv, opcode.Mod: plan.OpMod}[x.Op]
		return b.arith(x, op, es[0], es[1])
	}
	return nil, b.unsupported(x, "operator "+x.Op.String())
}

// bindConnective binds a chain of ANDs (or of ORs) as one connective of
// all its operands, in order. The parser nests `a OR b OR c` as
// ((a OR b) OR c); walking the chain rather than recursing, and building
// the argument list once, keeps a condition of thousands of terms linear
// where flattening each level into the next would copy it at every level.
func (b *Builder) bindConnective(x *ast.BinaryOperationExpr, c *exprCtx) (plan.Expr, error) {
	var chain []ast.ExprNode // right operands, innermost last
	n := x
	for {
		chain = append(chain, n.R)
		l, ok := n.L.(*ast.BinaryOperationExpr)
		if !ok || l.Op != x.Op {
			chain = append(chain, n.L)
			break
		}
		n = l
	}
	var args []plan.Expr
	for i := len(chain) - 1; i >= 0; i-- {
		e, err := b.bindBool(chain[i], c)
		if err != nil {
			return nil, err
		}
		switch y := e.(type) {
		case *plan.And:
			if x.Op == opcode.LogicAnd {
				args = append(args, y.Args...)
				continue
			}
		case *plan.Or:
			if x.Op == opcode.LogicOr {
				args = append(args, y.Args...)
				continue
			}
		}
		args = append(args, e)
	}
	if x.Op == opcode.LogicAnd {
		return &plan.And{Args: args}, nil
	}
	return &plan.Or{Args: args}, nil
}

func (b *Builder) bindUnary(x *ast.UnaryOperationExpr, c *exprCtx) (plan.Expr, error) {
	switch x.Op {
	case opcode.Not, opcode.Not2:
		e, err := b.bindBool(x.V, c)
		if err != nil {
			return nil, err
		}
		return &plan.Not{Arg: e}, nil
	case opcode.Plus:
		return b.bindExpr(x.V, c)
	case opcode.Minus:
		e, err := b.bindExpr(x.V, c)
		if err != nil {
			return nil, err
		}
		return b.negate(x, x.V, e)
	}
	return nil, b.unsupported(x, "operator "+x.Op.String())
}

// negate binds -e, the operand e bound from arg: strings are doubles and
// booleans integers; NULL stays NULL.
func (b *Builder) negate(x, arg ast.Node, e plan.Expr) (plan.Expr, error) {
	t := e.Type()
	var err error
	switch {
	case t.Kind == types.Null:
		return e, nil
	case t.Kind == types.Varchar:
		if e, err = b.coerce(arg, e, types.DoubleT); err != nil {
			return nil, err
		}
		t = types.DoubleT
	case t.Kind == types.Boolean:
		if e, err = b.coerce(arg, e, types.BigIntT); err != nil {
			return nil, err
		}
		t = types.BigIntT
	case t.Kind == types.Interval:
	case !t.IsNumeric():
		return nil, b.errAt(x, "cannot negate a %s", t)
	}
	if t.IsInteger() {
		t = types.BigIntT
	}
	return &plan.Unary{Op: plan.OpNeg, Arg: e, Typ: t, Pos: b.exprPos(x)}, nil
}

func (b *Builder) bindIsTruth(x *ast.IsTruthExpr, c *exprCtx) (plan.Expr, error) {
	e, err := b.bindBool(x.Expr, c)
	if err != nil {
		return nil, err
	}
	if x.True == 0 {
		e = &plan.Not{Arg: e}
	}
	// x IS TRUE is TRUE exactly when x is TRUE, and never NULL.
	var out plan.Expr = &plan.Case{
		Whens: []plan.When{{Cond: e, Result: &plan.Const{Val: types.BoolDatum(true), Typ: types.BoolT}}},
		Else:  &plan.Const{Val: types.BoolDatum(false), Typ: types.BoolT},
		Typ:   types.BoolT,
	}
	if x.Not {
		out = &plan.Not{Arg: out}
	}
	return out, nil
}
