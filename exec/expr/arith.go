package expr

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// isInt64 reports whether values of p are int64s (integers, TIMESTAMP,
// INTERVAL).
func isInt64(p types.Physical) bool {
	return p == types.PhysInt64 || p == types.PhysTimestamp || p == types.PhysDuration
}

// buildUnary compiles negation.
func (c *compiler) buildUnary(e *plan.Unary) (node, error) {
	arg, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	at := e.Arg.Type()
	if e.Op != plan.OpNeg || at.Physical() != e.Typ.Physical() {
		return nil, notSupported("-(%s) giving %s", at, e.Typ)
	}
	var k kernel
	switch p := at.Physical(); {
	case isInt64(p) && p != types.PhysTimestamp:
		k = func(in []*vector, n int, out *result) error {
			r, xs := out.int64s(n), in[0].i64[:n]
			bad := false
			for i, x := range xs {
				bad = bad || x == math.MinInt64
				r[i] = -x
			}
			if bad {
				for i, x := range xs {
					if x == math.MinInt64 && out.isValid(i) {
						return outOfRange(e.Typ, "-("+sqlValue(in[0], i, at)+")")
					}
				}
			}
			return nil
		}
	case p == types.PhysFloat64:
		k = func(in []*vector, n int, out *result) error {
			r, xs := out.float64s(n), in[0].f64[:n]
			for i, x := range xs {
				r[i] = -x
			}
			return nil
		}
	case p == types.PhysDecimal:
		k = func(in []*vector, n int, out *result) error {
			r, xs := out.decs(n), in[0].dec[:n]
			for i, x := range xs {
				r[i] = x.Negate()
			}
			return nil
		}
	default:
		return nil, notSupported("-%s", at)
	}
	return newFn(k, true, arg), nil
}

// buildArith compiles +, -, *, /, DIV and %.
func (c *compiler) buildArith(e *plan.Binary) (node, error) {
	l, r, err := c.compilePair(e.L, e.R)
	if err != nil {
		return nil, err
	}
	lt, rt, t := e.L.Type(), e.R.Type(), e.Typ
	lp, rp := lt.Physical(), rt.Physical()
	swapped := lp == types.PhysDuration && (rp == types.PhysDate32 || rp == types.PhysTimestamp) && e.Op == plan.OpAdd
	if swapped {
		// INTERVAL + DATE/TIMESTAMP: the kernel takes the temporal
		// operand first; the operands are still evaluated in order.
		lt, rt, lp, rp = rt, lt, rp, lp
	}
	var k kernel
	switch {
	case lp == types.PhysDate32 && rp == types.PhysDuration:
		k, err = dateIntervalKernel(e.Op, lt, rt, t)
	case lp == types.PhysTimestamp && rp == types.PhysDuration:
		k, err = timestampIntervalKernel(e.Op, lt, rt, t)
	case isInt64(lp) && isInt64(rp) && isInt64(t.Physical()):
		k, err = intKernel(e.Op, lt, rt, t)
	case lp == types.PhysFloat64 && rp == types.PhysFloat64:
		k, err = floatKernel(e.Op, lt, rt, t)
	case lp == types.PhysDecimal && rp == types.PhysDecimal:
		k, err = decimalKernel(e.Op, lt, rt, t)
	default:
		err = notSupported("%s %s %s", lt, e.Op, rt)
	}
	if err != nil {
		return nil, err
	}
	if swapped {
		inner := k
		k = func(in []*vector, n int, out *result) error {
			in[0], in[1] = in[1], in[0]
			return inner(in, n, out)
		}
	}
	return newFn(k, true, l, r), nil
}

// overflowAt finds the first non-NULL row where bad reports an overflow
// and returns the error naming its operands; nil when only NULL rows
// overflowed. It is the slow path taken after a kernel saw an overflow.
func overflowAt(in []*vector, n int, out *result, lt, rt, t types.T, op string, bad func(x, y int64) bool) error {
	for i := 0; i < n; i++ {
		if out.isValid(i) && bad(in[0].int64At(i), in[1].int64At(i)) {
			return outOfRange(t, fmt.Sprintf("%s %s %s", sqlValue(in[0], i, lt), op, sqlValue(in[1], i, rt)))
		}
	}
	return nil
}

func addOverflows(x, y int64) bool { s := x + y; return (x^s)&(y^s) < 0 }
func subOverflows(x, y int64) bool { s := x - y; return (x^y)&(x^s) < 0 }
func mulOverflows(x, y int64) bool { return mulOvf(x, y) != 0 }

// mulOvf returns 0 when x*y fits in an int64: the high word of the signed
// 128-bit product must be the sign extension of the low word.
func mulOvf(x, y int64) int64 {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	hs := int64(hi) - (x>>63)&y - (y>>63)&x
	return hs ^ (int64(lo) >> 63)
}

// intKernel returns the kernel for an integer (or TIMESTAMP/INTERVAL)
// operator. +, - and * detect overflow with branch-free arithmetic and look
// for the offending row only when some row overflowed.
func intKernel(op plan.BinOp, lt, rt, t types.T) (kernel, error) {
	switch op {
	case plan.OpAdd:
		return overflowChecked(addInts, lt, rt, t, "+", addOverflows), nil
	case plan.OpSub:
		return overflowChecked(subInts, lt, rt, t, "-", subOverflows), nil
	case plan.OpMul:
		return overflowChecked(mulInts, lt, rt, t, "*", mulOverflows), nil
	case plan.OpIntDiv, plan.OpMod:
		return intDivKernel(op, lt, rt, t), nil
	}
	return nil, notSupported("%s %s %s", lt, op, rt)
}

// overflowChecked returns the kernel that computes r = a op b with loop,
// which reports whether some row overflowed; only then does it look for
// the first non-NULL row that did (overflowAt, with bad).
func overflowChecked(loop func(a, b *vector, r []int64) bool, lt, rt, t types.T, op string, bad func(x, y int64) bool) kernel {
	return func(in []*vector, n int, out *result) error {
		if loop(in[0], in[1], out.int64s(n)) {
			return overflowAt(in, n, out, lt, rt, t, op, bad)
		}
		return nil
	}
}

// addInts computes r = a + b, reporting whether some row overflowed.
func addInts(a, b *vector, r []int64) bool {
	a, b = constLast(a, b)
	var ovf int64
	if b.konst {
		y := b.i64[0]
		for i, x := range a.i64[:len(r)] {
			s := x + y
			ovf |= (x ^ s) & (y ^ s)
			r[i] = s
		}
		return ovf < 0
	}
	xs, ys := a.i64[:len(r)], b.i64[:len(r)]
	for i := range r {
		x, y := xs[i], ys[i]
		s := x + y
		ovf |= (x ^ s) & (y ^ s)
		r[i] = s
	}
	return ovf < 0
}

// constLast orders the operands of a commutative operator so that the
// constant, if only one is, comes second.
func constLast(a, b *vector) (*vector, *vector) {
	if a.konst && !b.konst {
		return b, a
	}
	return a, b
}

// subInts computes r = a - b, reporting whether some row overflowed.
func subInts(a, b *vector, r []int64) bool {
	var ovf int64
	if b.konst {
		y := b.i64[0]
		for i, x := range a.i64[:len(r)] {
			s := x - y
			ovf |= (x ^ y) & (x ^ s)
			r[i] = s
		}
		return ovf < 0
	}
	for i := range r {
		x, y := a.int64At(i), b.int64At(i)
		s := x - y
		ovf |= (x ^ y) & (x ^ s)
		r[i] = s
	}
	return ovf < 0
}

// mulInts computes r = a * b, reporting whether some row overflowed.
func mulInts(a, b *vector, r []int64) bool {
	a, b = constLast(a, b)
	var ovf int64
	if b.konst {
		y := b.i64[0]
		for i, x := range a.i64[:len(r)] {
			ovf |= mulOvf(x, y)
			r[i] = x * y
		}
		return ovf != 0
	}
	xs, ys := a.i64[:len(r)], b.i64[:len(r)]
	for i := range r {
		ovf |= mulOvf(xs[i], ys[i])
		r[i] = xs[i] * ys[i]
	}
	return ovf != 0
}

// intDivKernel is DIV or MOD over integers. A zero divisor gives NULL, as in
// MySQL; MinInt64 DIV -1 overflows.
func intDivKernel(op plan.BinOp, lt, rt, t types.T) kernel {
	return func(in []*vector, n int, out *result) error {
		a, b, r := in[0], in[1], out.int64s(n)
		for i := range r {
			x, y := a.int64At(i), b.int64At(i)
			switch {
			case y == 0:
				out.setNull(i, n)
				r[i] = 0
			case y == -1:
				if op == plan.OpIntDiv && x == math.MinInt64 && out.isValid(i) {
					return outOfRange(t, fmt.Sprintf("%s DIV %s", sqlValue(a, i, lt), sqlValue(b, i, rt)))
				}
				r[i] = 0
				if op == plan.OpIntDiv {
					r[i] = -x
				}
			case op == plan.OpIntDiv:
				r[i] = x / y
			default:
				r[i] = x % y
			}
		}
		return nil
	}
}

// floatKernel returns the kernel for a DOUBLE operator (IEEE arithmetic;
// division and modulo by zero give NULL; DIV truncates to BIGINT).
func floatKernel(op plan.BinOp, lt, rt, t types.T) (kernel, error) {
	switch op {
	case plan.OpAdd, plan.OpSub, plan.OpMul:
		if t.Physical() != types.PhysFloat64 {
			break
		}
		return func(in []*vector, n int, out *result) error {
			a, b, r := in[0], in[1], out.float64s(n)
			if b.konst {
				floatConstOp(op, a.f64[:n], b.f64[0], r)
				return nil
			}
			if a.konst {
				x := a.f64[0]
				for i, y := range b.f64[:n] {
					switch op {
					case plan.OpAdd:
						r[i] = x + y
					case plan.OpSub:
						r[i] = x - y
					default:
						r[i] = x * y
					}
				}
				return nil
			}
			xs, ys := a.f64[:n], b.f64[:n]
			switch op {
			case plan.OpAdd:
				for i := range r {
					r[i] = xs[i] + ys[i]
				}
			case plan.OpSub:
				for i := range r {
					r[i] = xs[i] - ys[i]
				}
			default:
				for i := range r {
					r[i] = xs[i] * ys[i]
				}
			}
			return nil
		}, nil
	case plan.OpDiv, plan.OpMod, plan.OpIntDiv:
		if op == plan.OpIntDiv && !t.IsInteger() || op != plan.OpIntDiv && t.Physical() != types.PhysFloat64 {
			break
		}
		return func(in []*vector, n int, out *result) error {
			a, b := in[0], in[1]
			var r []float64
			var q []int64
			if op == plan.OpIntDiv {
				q = out.int64s(n)
			} else {
				r = out.float64s(n)
			}
			for i := 0; i < n; i++ {
				x, y := a.float64At(i), b.float64At(i)
				if y == 0 {
					out.setNull(i, n)
					continue
				}
				switch op {
				case plan.OpDiv:
					r[i] = x / y
				case plan.OpMod:
					r[i] = math.Mod(x, y)
				default:
					v := math.Trunc(x / y)
					if !(v >= -1<<63 && v < 1<<63) && out.isValid(i) {
						return outOfRange(t, fmt.Sprintf("%s DIV %s", sqlValue(a, i, lt), sqlValue(b, i, rt)))
					}
					q[i] = int64(v)
				}
			}
			return nil
		}, nil
	}
	return nil, notSupported("%s %s %s giving %s", lt, op, rt, t)
}

// floatConstOp computes xs op y into r.
func floatConstOp(op plan.BinOp, xs []float64, y float64, r []float64) {
	r = r[:len(xs)]
	switch op {
	case plan.OpAdd:
		for i, x := range xs {
			r[i] = x + y
		}
	case plan.OpSub:
		for i, x := range xs {
			r[i] = x - y
		}
	default:
		for i, x := range xs {
			r[i] = x * y
		}
	}
}
