package expr

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// cmpNode compares two values of one type. Strings compare bytewise
// (binary collation). <=> is never NULL.
type cmpNode struct {
	l, r node
	op   plan.BinOp
	p    types.Physical
	// col and k are set for column-vs-constant comparisons, which Select
	// turns into a selection vector in one pass.
	col *inputRef
	k   *constNode
	out result
}

func (c *compiler) buildCompare(e *plan.Binary) (node, error) {
	l, r, err := c.compilePair(e.L, e.R)
	if err != nil {
		return nil, err
	}
	lt, rt := e.L.Type(), e.R.Type()
	if lt.Physical() != rt.Physical() && lt.Kind != types.Null && rt.Kind != types.Null {
		return nil, notSupported("comparing %s with %s", lt, rt)
	}
	p := lt.Physical()
	if lt.Kind == types.Null {
		p = rt.Physical()
	}
	op := e.Op
	if _, ok := l.(*constNode); ok {
		if _, ok := r.(*constNode); !ok {
			l, r, op = r, l, op.Commute()
		}
	}
	n := &cmpNode{l: l, r: r, op: op, p: p}
	if col, ok := l.(*inputRef); ok {
		if k, ok := r.(*constNode); ok && !k.val.Null && op != plan.OpNullSafeEq {
			n.col, n.k = col, k
		}
	}
	return n, nil
}

func (c *cmpNode) eval(ctx *evalCtx) (*vector, error) {
	a, err := c.l.eval(ctx)
	if err != nil {
		return nil, err
	}
	b, err := c.r.eval(ctx)
	if err != nil {
		return nil, err
	}
	n, konst := ctx.n, a.konst && b.konst
	if konst {
		n = 1
	}
	op := c.op
	if op != plan.OpNullSafeEq && (a.isNullConst() || b.isNullConst()) {
		return c.out.nullConst(), nil
	}
	c.out.reset()
	res := c.out.bools(n)
	if op == plan.OpNullSafeEq {
		op = plan.OpEq
	}
	compareInto(c.p, op, a, b, res)
	if c.op == plan.OpNullSafeEq {
		for i := range res {
			va, vb := a.isValid(i), b.isValid(i)
			res[i] = va && vb && res[i] || !va && !vb
		}
	} else {
		c.out.andValid(n, a, b)
	}
	c.out.konst = konst
	return &c.out.vector, nil
}

// compareInto sets res[i] to a[i] op b[i] for every row of res. Either
// operand may be a constant (one value for every row); the typed loops
// take the constant on the right, so a constant left operand is swapped
// over with the operator commuted.
func compareInto(p types.Physical, op plan.BinOp, a, b *vector, res []bool) {
	if a.konst && !b.konst {
		a, b, op = b, a, op.Commute()
	}
	switch p {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		cmpVec(op, a.i64, b.i64, b.konst, res)
	case types.PhysDate32:
		cmpVec(op, a.i32, b.i32, b.konst, res)
	case types.PhysFloat64:
		cmpVec(op, a.f64, b.f64, b.konst, res)
	case types.PhysDecimal:
		for i := range res {
			res[i] = holds(op, a.decAt(i).Cmp(b.decAt(i)))
		}
	case types.PhysString:
		if op == plan.OpEq || op == plan.OpNe {
			want := op == plan.OpEq
			for i := range res {
				res[i] = (a.str(i) == b.str(i)) == want
			}
			return
		}
		for i := range res {
			res[i] = holds(op, strings.Compare(a.str(i), b.str(i)))
		}
	case types.PhysBool:
		for i := range res {
			res[i] = holds(op, b2i(a.boolAt(i))-b2i(b.boolAt(i)))
		}
	case types.PhysNull:
		clear(res)
	}
}

// holds reports whether a comparison whose three-way result is c satisfies
// op.
func holds(op plan.BinOp, c int) bool {
	switch op {
	case plan.OpEq:
		return c == 0
	case plan.OpNe:
		return c != 0
	case plan.OpLt:
		return c < 0
	case plan.OpLe:
		return c <= 0
	case plan.OpGt:
		return c > 0
	}
	return c >= 0
}

// b2i converts a boolean to 0 or 1 (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ordered are the fixed-width types compared with Go's operators.
type ordered interface{ ~int64 | ~int32 | ~float64 }

// cmpVec sets r[i] = xs[i] op ys[i], or xs[i] op ys[0] when yk.
func cmpVec[T ordered](op plan.BinOp, xs, ys []T, yk bool, r []bool) {
	xs = xs[:len(r)]
	if yk {
		y := ys[0]
		switch op {
		case plan.OpEq:
			for i, x := range xs {
				r[i] = x == y
			}
		case plan.OpNe:
			for i, x := range xs {
				r[i] = x != y
			}
		case plan.OpLt:
			for i, x := range xs {
				r[i] = x < y
			}
		case plan.OpLe:
			for i, x := range xs {
				r[i] = x <= y
			}
		case plan.OpGt:
			for i, x := range xs {
				r[i] = x > y
			}
		default:
			for i, x := range xs {
				r[i] = x >= y
			}
		}
		return
	}
	ys = ys[:len(r)]
	switch op {
	case plan.OpEq:
		for i, x := range xs {
			r[i] = x == ys[i]
		}
	case plan.OpNe:
		for i, x := range xs {
			r[i] = x != ys[i]
		}
	case plan.OpLt:
		for i, x := range xs {
			r[i] = x < ys[i]
		}
	case plan.OpLe:
		for i, x := range xs {
			r[i] = x <= ys[i]
		}
	case plan.OpGt:
		for i, x := range xs {
			r[i] = x > ys[i]
		}
	default:
		for i, x := range xs {
			r[i] = x >= ys[i]
		}
	}
}

// selectRows implements selector for a column compared with a constant
// when the column has no NULLs: one pass appends the matching rows.
func (c *cmpNode) selectRows(ctx *evalCtx, sel []int32) ([]int32, bool, error) {
	if c.col == nil {
		return sel, false, nil
	}
	v, err := ctx.col(c.col.ord)
	if err != nil || v.hasNulls() || v.konst {
		return sel, false, err
	}
	n := ctx.n
	switch c.p {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return selConst(c.op, v.i64[:n], c.k.v.i64[0], sel), true, nil
	case types.PhysDate32:
		return selConst(c.op, v.i32[:n], c.k.v.i32[0], sel), true, nil
	case types.PhysFloat64:
		return selConst(c.op, v.f64[:n], c.k.v.f64[0], sel), true, nil
	}
	return sel, false, nil
}

// selConst appends to sel the indices i where xs[i] op y, writing every
// index and advancing by the comparison's outcome (no branch to mispredict).
func selConst[T ordered](op plan.BinOp, xs []T, y T, sel []int32) []int32 {
	base := len(sel)
	sel = growCap(sel, base+len(xs))[:base+len(xs)]
	out := sel[base:]
	k := 0
	switch op {
	case plan.OpEq:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x == y)
		}
	case plan.OpNe:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x != y)
		}
	case plan.OpLt:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x < y)
		}
	case plan.OpLe:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x <= y)
		}
	case plan.OpGt:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x > y)
		}
	default:
		for i, x := range xs {
			out[k] = int32(i)
			k += b2i(x >= y)
		}
	}
	return sel[:base+k]
}
