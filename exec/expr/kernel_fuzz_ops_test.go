package expr_test

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Generators of operators, predicates and casts, each as the binder
// builds it from SQL.

// numericTypes are the operand types of arithmetic (strings and booleans
// are converted as MySQL does).
var numericTypes = []types.T{types.BigIntT, types.IntT, types.DoubleT, types.DecimalT(10, 2), types.DecimalT(38, 10),
	types.DecimalT(19, 0), types.BoolT, types.VarcharT, types.NullT}

// neg is -x.
func (g *gen) neg(depth int) plan.Expr {
	e := bound(g.b.Negate(g.of(pick(g.r, append(numericTypes, types.IntervalT)), depth)))
	if _, ok := e.(*plan.Unary); !ok {
		return nil // the binder keeps NULL as is: no negation to check
	}
	return e
}

// arith is l op r over numbers.
func (g *gen) arith(op plan.BinOp, depth int) plan.Expr {
	return bound(g.b.Arith(op, g.of(pick(g.r, numericTypes), depth), g.of(pick(g.r, numericTypes), depth)))
}

// timeArith is DATE/TIMESTAMP ± INTERVAL. The interval is a constant, as
// the binder writes it, or (as the kernels also take) a column, an
// interval too long for a constant (n * INTERVAL '1' unit), and for + it
// sometimes comes first.
func (g *gen) timeArith(op plan.BinOp, depth int) plan.Expr {
	base := g.of(pick(g.r, []types.T{types.DateT, types.TimestampT(0), types.TimestampT(3), types.VarcharT, types.NullT}), depth)
	var iv plan.Expr
	switch p := g.r.IntN(10); {
	case p < 6:
		iv = &plan.Const{Val: valueOf(g.r, types.IntervalT, false), Typ: types.IntervalT}
	case p < 8:
		iv = g.leaf(types.IntervalT)
	default:
		iv = g.intervalTimes(depth)
	}
	e := bound(g.b.Arith(op, base, iv))
	if b, ok := e.(*plan.Binary); ok && op == plan.OpAdd && g.r.IntN(8) == 0 {
		b.L, b.R = b.R, b.L
	}
	return e
}

// intervalTimes is n * INTERVAL '1' unit.
func (g *gen) intervalTimes(depth int) plan.Expr {
	unit := &plan.Const{Val: types.IntDatum(pick(g.r, []int64{1, 1000, types.MsPerMinute, types.MsPerHour, types.MsPerDay, 7 * types.MsPerDay})), Typ: types.IntervalT}
	var r plan.Expr = unit
	if g.r.IntN(4) == 0 {
		r = g.leaf(types.IntervalT)
	}
	return &plan.Binary{Op: plan.OpMul, L: g.of(types.BigIntT, depth), R: r, Typ: types.IntervalT}
}

// compare is l op r over two values of any types that compare.
func (g *gen) compare(op plan.BinOp, depth int) plan.Expr {
	l := g.any(depth)
	var r plan.Expr
	if g.r.IntN(2) == 0 {
		r = g.of(l.Type(), depth) // the same type: the common case
	} else {
		r = g.any(depth)
	}
	return bound(g.b.Compare(op, l, r))
}

// cond is a condition: any expression converted to BOOLEAN.
func (g *gen) cond(depth int) plan.Expr {
	if g.r.IntN(2) == 0 {
		if e := bound(g.b.ToBool(g.any(depth), "WHERE")); e != nil {
			return e
		}
	}
	return g.of(types.BoolT, depth)
}

// logic is an AND (and) or OR of two to four conditions.
func (g *gen) logic(and bool, depth int) plan.Expr {
	var args []plan.Expr
	for range 2 + g.r.IntN(3) {
		args = append(args, g.cond(depth))
	}
	if and {
		return plan.MakeAnd(args)
	}
	var flat []plan.Expr
	for _, a := range args {
		if o, ok := a.(*plan.Or); ok {
			flat = append(flat, o.Args...)
		} else {
			flat = append(flat, a)
		}
	}
	return &plan.Or{Args: flat}
}

func (g *gen) not(depth int) plan.Expr { return &plan.Not{Arg: g.cond(depth)} }

func (g *gen) isNull(depth int) plan.Expr {
	return &plan.IsNull{Arg: g.any(depth), Negated: g.r.IntN(2) == 0}
}

// in is x [NOT] IN (list): mostly constants (a set probe, binary searched
// past eight values), sometimes expressions (a chain of equalities).
func (g *gen) in(depth int) plan.Expr {
	arg := g.any(depth)
	t := arg.Type()
	n := 1 + g.r.IntN(4)
	if g.r.IntN(3) == 0 {
		n = 9 + g.r.IntN(6)
	}
	list := make([]plan.Expr, n)
	consts := g.r.IntN(3) > 0
	for i := range list {
		if consts {
			list[i] = g.leafConst(t)
			if g.r.IntN(10) == 0 && depth > 0 {
				list[i] = g.of(t, depth) // a constant expression that may fail
			}
		} else {
			list[i] = g.of(t, depth)
		}
		var err error
		if t, err = g.b.ComparisonType(t, list[i].Type()); err != nil {
			return nil
		}
	}
	var ok bool
	if arg, ok = g.coerce(arg, t); !ok {
		return nil
	}
	for i := range list {
		if list[i], ok = g.coerce(list[i], t); !ok {
			return nil
		}
	}
	return &plan.In{Arg: arg, List: list, Negated: g.r.IntN(3) == 0}
}

// leafConst is a constant (or typed NULL) of type t.
func (g *gen) leafConst(t types.T) plan.Expr {
	if t.Kind == types.Null || g.r.IntN(10) == 0 {
		return &plan.Const{Val: types.NullDatum, Typ: t}
	}
	return &plan.Const{Val: valueOf(g.r, t, g.r.IntN(3) == 0), Typ: t}
}

// like is s [NOT] LIKE pattern [ESCAPE c].
func (g *gen) like(depth int) plan.Expr {
	arg, ok := g.coerce(g.any(depth), types.VarcharT)
	if !ok {
		return nil
	}
	var pat plan.Expr
	if g.r.IntN(3) > 0 {
		var b []byte
		for range g.r.IntN(7) {
			b = append(b, pick(g.r, []string{"%", "_", "a", "b", "é", "日", `\`, "!", "%%", " ", "A", "z"})...)
		}
		pat = &plan.Const{Val: types.StringDatum(string(b)), Typ: types.VarcharT}
	} else if pat, ok = g.coerce(g.any(depth), types.VarcharT); !ok {
		return nil
	}
	return &plan.Like{Arg: arg, Pattern: pat, Escape: pick(g.r, []byte{'\\', '\\', '!', 'a', '%'}), Negated: g.r.IntN(3) == 0}
}

// caseWhen is a searched CASE of one to three branches, with or without
// an ELSE, its results in their common type.
func (g *gen) caseWhen(depth int) plan.Expr {
	rt := pick(g.r, argTypes)
	c := &plan.Case{}
	var results []plan.Expr
	for range 1 + g.r.IntN(3) {
		c.Whens = append(c.Whens, plan.When{Cond: g.cond(depth)})
		results = append(results, g.of(rt, depth))
	}
	if g.r.IntN(4) > 0 {
		results = append(results, g.of(rt, depth))
	} else {
		results = append(results, &plan.Const{Val: types.NullDatum, Typ: types.NullT})
	}
	t := types.NullT
	for _, r := range results {
		var err error
		if t, err = g.b.UnionType(t, r.Type()); err != nil {
			return nil
		}
	}
	if t.Kind == types.Null {
		t = types.VarcharT
	}
	for i := range results {
		var ok bool
		if results[i], ok = g.coerce(results[i], t); !ok {
			return nil
		}
	}
	for i := range c.Whens {
		c.Whens[i].Result = results[i]
	}
	c.Else, c.Typ = results[len(results)-1], t
	return c
}

// lenient is the binder's implicit reading of a string as a number.
func (g *gen) lenient(depth int) plan.Expr {
	e := g.of(types.VarcharT, depth)
	if e.Type().Kind != types.Varchar {
		return nil
	}
	if c, ok := g.coerce(e, types.DoubleT); ok {
		if c, ok := c.(*plan.Cast); ok {
			return c
		}
	}
	return nil // a NULL: the binder types it, no cast to check
}

// cast is CAST(x AS t) from a value of type from to a random type.
func (g *gen) cast(from types.T, depth int) plan.Expr {
	var arg plan.Expr
	if from.Kind == types.Null {
		arg = &plan.Const{Val: types.NullDatum, Typ: types.NullT}
	} else {
		arg = g.of(from, depth)
	}
	return bound(g.b.Cast(arg, pick(g.r, castTargets)))
}
