package expr

import (
	"fmt"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Decimal helpers on decimal128.Num in 128-bit integer arithmetic. The
// arrow-go methods for rescaling go through math/big; these avoid that on
// the common paths.

// pow10u64 holds 10^k for k <= 19, the powers that fit a uint64.
var pow10u64 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// pow10 returns 10^k as a decimal (0 <= k <= 38).
func pow10(k int32) decimal128.Num { return decimal128.GetScaleMultiplier(int(k)) }

// decFits reports whether v has at most prec digits.
func decFits(v decimal128.Num, prec int32) bool { return v.Abs().Less(pow10(prec)) }

// decScaleUp multiplies v by 10^k; ok is false when the result would have
// more than 38 digits.
func decScaleUp(v decimal128.Num, k int32) (decimal128.Num, bool) {
	if k == 0 {
		return v, true
	}
	if k > 38 || !v.Abs().Less(pow10(38-k)) {
		return v, false
	}
	return v.Mul(pow10(k)), true
}

// decScaleDown divides v by 10^k, rounding half away from zero.
func decScaleDown(v decimal128.Num, k int32) decimal128.Num {
	if k == 0 {
		return v
	}
	if k > 19 {
		return v.ReduceScaleBy(k, true)
	}
	neg := v.Sign() < 0
	a := v.Abs()
	d := pow10u64[k]
	hi, lo := uint64(a.HighBits()), a.LowBits()
	qhi, r := hi/d, hi%d
	qlo, rem := bits.Div64(r, lo, d)
	if rem >= d-rem { // rem >= d/2, without overflow
		var c uint64
		qlo, c = bits.Add64(qlo, 1, 0)
		qhi += c
	}
	q := decimal128.New(int64(qhi), qlo)
	if neg {
		return q.Negate()
	}
	return q
}

// decRescale converts v from scale from to scale to, rounding when the
// scale shrinks; ok is false on overflow past 38 digits.
func decRescale(v decimal128.Num, from, to int32) (decimal128.Num, bool) {
	if to >= from {
		return decScaleUp(v, to-from)
	}
	return decScaleDown(v, from-to), true
}

// decToInt64 converts an integral decimal to int64.
func decToInt64(v decimal128.Num) (int64, bool) {
	lo := int64(v.LowBits())
	return lo, v.HighBits() == lo>>63
}

// decMulWide multiplies a (scale sa) by b (scale sb) into scale s through
// math/big, for operands too wide for 128-bit products.
func decMulWide(a, b decimal128.Num, sa, sb, s int32) (decimal128.Num, bool) {
	p := new(big.Int).Mul(a.BigInt(), b.BigInt())
	switch d := sa + sb - s; {
	case d > 0:
		div := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil)
		q, r := new(big.Int).QuoRem(p, div, new(big.Int))
		if r.Abs(r).Lsh(r, 1).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(int64(p.Sign())))
		}
		p = q
	case d < 0:
		p.Mul(p, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-d)), nil))
	}
	if p.BitLen() > 127 { // a decimal128 holds magnitudes below 2^127
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(p), true
}

// decimalKernel returns the kernel for a DECIMAL operator. + - DIV % take
// operands of one type; * takes any two scales and rounds the exact product
// to the result's scale. A result wider than the result type's precision
// is an error.
func decimalKernel(op plan.BinOp, lt, rt, t types.T) (kernel, error) {
	prec := int32(t.Precision)
	sa, sb, s := int32(lt.Scale), int32(rt.Scale), int32(t.Scale)
	fail := func(in []*vector, i int, sym string) error {
		return outOfRange(t, fmt.Sprintf("%s %s %s", sqlValue(in[0], i, lt), sym, sqlValue(in[1], i, rt)))
	}
	switch op {
	case plan.OpAdd, plan.OpSub:
		if t.Kind != types.Decimal || sa != s || sb != s {
			break
		}
		return func(in []*vector, n int, out *result) error {
			a, b, r := in[0], in[1], out.decs(n)
			for i := range r {
				x, y := a.decAt(i), b.decAt(i)
				if op == plan.OpSub {
					y = y.Negate()
				}
				v := x.Add(y)
				r[i] = v
				wrapped := x.Sign() == y.Sign() && v.Sign() != x.Sign() && x.Sign() != 0
				if (wrapped || !decFits(v, prec)) && out.isValid(i) {
					return fail(in, i, op.String())
				}
			}
			return nil
		}, nil
	case plan.OpMul:
		if t.Kind != types.Decimal {
			break
		}
		narrow := int(lt.Precision)+int(rt.Precision) <= types.MaxDecimalPrecision
		return func(in []*vector, n int, out *result) error {
			a, b, r := in[0], in[1], out.decs(n)
			for i := range r {
				x, y := a.decAt(i), b.decAt(i)
				var v decimal128.Num
				ok := true
				if narrow {
					v, ok = decRescale(x.Mul(y), sa+sb, s)
				} else {
					v, ok = decMulWide(x, y, sa, sb, s)
				}
				r[i] = v
				if (!ok || !decFits(v, prec)) && out.isValid(i) {
					return fail(in, i, "*")
				}
			}
			return nil
		}, nil
	case plan.OpIntDiv, plan.OpMod:
		if sa != sb || (op == plan.OpIntDiv && !t.IsInteger()) || (op == plan.OpMod && t != lt) {
			break
		}
		return func(in []*vector, n int, out *result) error {
			a, b := in[0], in[1]
			var q []int64
			var r []decimal128.Num
			if op == plan.OpIntDiv {
				q = out.int64s(n)
			} else {
				r = out.decs(n)
			}
			for i := 0; i < n; i++ {
				x, y := a.decAt(i), b.decAt(i)
				if y.Sign() == 0 || !out.isValid(i) {
					out.setNull(i, n)
					continue
				}
				quo, rem := x.Div(y)
				if op == plan.OpMod {
					r[i] = rem
					continue
				}
				v, ok := decToInt64(quo)
				if !ok {
					return fail(in, i, "DIV")
				}
				q[i] = v
			}
			return nil
		}, nil
	}
	return nil, notSupported("%s %s %s giving %s", lt, op, rt, t)
}

// floorDiv divides rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
