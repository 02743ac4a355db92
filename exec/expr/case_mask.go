package expr

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// maskNode is CASE WHEN cond THEN x END, with no ELSE (or ELSE NULL),
// where x is an input column or a constant: the shape an aggregate's
// FILTER (WHERE cond) takes (COUNT(DISTINCT bidder) FILTER (WHERE price <
// 10000) reads CASE WHEN price < 10000 THEN bidder END, COUNT(*) FILTER
// (...) CASE WHEN ... THEN 1 END). Reading a column cannot fail, so x is
// read for every row, and its values are the result's as they are (a
// constant's, repeated once into a buffer kept for the next batches):
// only a validity bitmap is made, x's AND cond's TRUE, eight rows a byte,
// where a CASE in general gathers the rows each branch takes and
// assembles its result from theirs, row by row.
type maskNode struct {
	cond node
	x    node
	out  result
	// rep holds a constant x repeated for reps rows.
	rep  buffers
	reps int
	// general evaluates the CASE when x is a constant string.
	general *caseNode
}

// buildMask returns a maskNode for e, whose general CASE is general, if
// e has its shape, or nil.
func buildMask(e *plan.Case, general *caseNode) node {
	if len(e.Whens) != 1 {
		return nil
	}
	if k, ok := e.Else.(*plan.Const); !ok || !k.Val.Null {
		return nil
	}
	w := e.Whens[0]
	switch r := w.Result.(type) {
	case *plan.InputRef:
	case *plan.Const:
		if r.Val.Null {
			return nil
		}
	default:
		return nil
	}
	if w.Result.Type().Physical() != e.Typ.Physical() {
		return nil
	}
	if w.Cond.Type().Kind != types.Boolean {
		return nil
	}
	// The general CASE's own nodes: evaluated over every row, a branch is
	// its node (branch.evalOn), and the two never run interleaved.
	return &maskNode{cond: general.conds[0].n, x: general.res[0].n, general: general}
}

func (k *maskNode) eval(c *evalCtx) (*vector, error) {
	cv, err := k.cond.eval(c)
	if err != nil {
		return nil, err
	}
	if cv.konst {
		if cv.validAndTrue(0) {
			return k.x.eval(c)
		}
		return k.out.nullConst(), nil
	}
	xv, err := k.x.eval(c)
	if err != nil {
		return nil, err
	}
	n := c.n
	out := &k.out
	if xv.konst {
		if !k.repeat(xv, n) {
			return k.general.eval(c)
		}
	} else {
		out.vector = *xv // x's values, shared
	}
	nb := bitmapBytes(n)
	out.buf.valid = grow(out.buf.valid, nb)
	bm := out.buf.valid
	b := cv.b[:n]
	full := n / 8
	for j := range full {
		r := b[8*j : 8*j+8 : 8*j+8]
		bm[j] = boolToByte(r[0]) | boolToByte(r[1])<<1 | boolToByte(r[2])<<2 | boolToByte(r[3])<<3 |
			boolToByte(r[4])<<4 | boolToByte(r[5])<<5 | boolToByte(r[6])<<6 | boolToByte(r[7])<<7
	}
	if full < nb {
		var m byte
		for i, v := range b[8*full:] {
			m |= boolToByte(v) << i
		}
		bm[full] = m
	}
	andBits(bm, cv.valid)
	if !xv.konst {
		andBits(bm, xv.valid)
	}
	out.valid = bm
	return &out.vector, nil
}

// repeat makes out's values n copies of the constant x (not NULL), and
// reports false for a string, which it leaves to the general CASE.
func (k *maskNode) repeat(x *vector, n int) bool {
	if x.offs != nil || x.b == nil && x.i64 == nil && x.i32 == nil && x.f64 == nil && x.dec == nil {
		return false
	}
	if n > k.reps {
		k.reps = max(n, 2*k.reps)
		switch {
		case x.b != nil:
			k.rep.b = repeated(k.rep.b, x.b[0], k.reps)
		case x.i64 != nil:
			k.rep.i64 = repeated(k.rep.i64, x.i64[0], k.reps)
		case x.i32 != nil:
			k.rep.i32 = repeated(k.rep.i32, x.i32[0], k.reps)
		case x.f64 != nil:
			k.rep.f64 = repeated(k.rep.f64, x.f64[0], k.reps)
		default:
			k.rep.dec = repeated(k.rep.dec, x.dec[0], k.reps)
		}
	}
	out := &k.out
	out.vector = vector{}
	switch {
	case x.b != nil:
		out.b = k.rep.b[:n]
	case x.i64 != nil:
		out.i64 = k.rep.i64[:n]
	case x.i32 != nil:
		out.i32 = k.rep.i32[:n]
	case x.f64 != nil:
		out.f64 = k.rep.f64[:n]
	default:
		out.dec = k.rep.dec[:n]
	}
	return true
}

// repeated returns n copies of v, in buf's memory if it has room.
func repeated[T any](buf []T, v T, n int) []T {
	buf = grow(buf, n)
	for i := range buf {
		buf[i] = v
	}
	return buf
}

// andBits clears in dst the bits clear in src, if src is not nil.
func andBits(dst, src []byte) {
	if src == nil {
		return
	}
	src = src[:len(dst)]
	for i := range dst {
		dst[i] &= src[i]
	}
}
