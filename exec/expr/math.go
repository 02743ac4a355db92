package expr

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// absKernel is ABS, which keeps its argument's type.
func absKernel(e *plan.Func) (kernel, error) {
	t := e.Args[0].Type()
	if len(e.Args) != 1 || e.Typ.Physical() != t.Physical() {
		return nil, notSupported("ABS of %s giving %s", t, e.Typ)
	}
	switch p := t.Physical(); p {
	case types.PhysInt64, types.PhysFloat64, types.PhysDecimal:
		return func(in []*vector, n int, out *result) error {
			v := in[0]
			switch p {
			case types.PhysInt64:
				r := out.int64s(n)
				for i := range r {
					x := v.int64At(i)
					if x == math.MinInt64 && out.isValid(i) {
						return outOfRange(t, "ABS("+sqlValue(v, i, t)+")")
					}
					r[i] = max(x, -x)
				}
			case types.PhysFloat64:
				r := out.float64s(n)
				for i := range r {
					r[i] = math.Abs(v.float64At(i))
				}
			default:
				r := out.decs(n)
				for i := range r {
					r[i] = v.decAt(i).Abs()
				}
			}
			return nil
		}, nil
	}
	return nil, notSupported("ABS of %s", t)
}

// buildRound compiles ROUND(x[, d]), rounding half away from zero (MySQL's
// rule for exact values, used here for doubles too). The result type comes
// from plan's registry: BIGINT, DOUBLE, or DECIMAL at scale 0 (one
// argument) or at x's scale with digits past d zeroed.
func buildRound(c *compiler, e *plan.Func) (node, error) {
	t, xt := e.Typ, e.Args[0].Type()
	if err := argsOf(e, xt.Physical(), types.PhysInt64); err != nil {
		return nil, err
	}
	digits := func(in []*vector, i int) int64 {
		if len(in) > 1 {
			return in[1].int64At(i)
		}
		return 0
	}
	var k kernel
	switch {
	case xt.IsInteger() && t.IsInteger():
		k = func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				x, d := in[0].int64At(i), digits(in, i)
				r[i] = x
				if d >= 0 || !out.isValid(i) {
					continue
				}
				if d < -18 {
					// 10^19 is past BIGINT: |x| >= 5·10^18 rounds to it.
					r[i] = 0
					if d == -19 && (x >= 5e18 || x <= -5e18) {
						return outOfRange(t, fmt.Sprintf("ROUND(%d, %d)", x, d))
					}
					continue
				}
				p := int64(pow10u64[-d])
				q := x/p + (x%p)*2/p // half away from zero: |2·rem| >= p adds one
				if mulOverflows(q, p) {
					return outOfRange(t, fmt.Sprintf("ROUND(%d, %d)", x, d))
				}
				r[i] = q * p
			}
			return nil
		}
	case xt.Physical() == types.PhysFloat64:
		k = func(in []*vector, n int, out *result) error {
			r := out.float64s(n)
			for i := range r {
				x, d := in[0].float64At(i), digits(in, i)
				v, ok := roundFloat(x, d)
				if !ok && out.isValid(i) {
					return outOfRange(t, fmt.Sprintf("ROUND(%s, %d)", types.FormatFloat(x), d))
				}
				r[i] = v
			}
			return nil
		}
	case xt.Kind == types.Decimal && t.Kind == types.Decimal:
		xs, s, prec := int32(xt.Scale), int32(t.Scale), int32(t.Precision)
		k = func(in []*vector, n int, out *result) error {
			r := out.decs(n)
			for i := range r {
				// Round x to d digits and write it at the result's scale
				// s (0, or x's own) in one step: x's scale may be too
				// wide for the rounded value (ROUND of a DECIMAL(38,10)
				// near 10^28 is a DECIMAL(29,0), which fits).
				x, d := in[0].decAt(i), digits(in, i)
				var v decimal128.Num
				ok := true
				switch drop := int64(xs) - d; {
				case drop <= 0:
					v, ok = decRescale(x, xs, s)
				case drop > 38:
					v = decimal128.Num{}
				default: // s >= d here: s is 0 with d 0, or x's scale
					v, ok = decScaleUp(decScaleDown(x, int32(drop)), int32(int64(s)-d))
				}
				if (!ok || !decFits(v, prec)) && out.isValid(i) {
					return outOfRange(t, fmt.Sprintf("ROUND(%s, %d)", sqlValue(in[0], i, xt), d))
				}
				r[i] = v
			}
			return nil
		}
	default:
		return nil, notSupported("ROUND of %s giving %s", xt, t)
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return newFn(k, true, args...), nil
}

// roundFloat rounds x half away from zero at d decimal digits (before the
// point when d < 0) as its shortest decimal form reads, the form eddy shows
// and CAST to DECIMAL rounds (ROUND(2.675, 2) is 2.68, ROUND(546461.35, 1)
// 546461.4), and returns the double nearest to the result. ok is false
// when that overflows (ROUND(1.7e308, -308)). NaN and ±Inf stay as they
// are; the sign of a zero result is x's.
func roundFloat(x float64, d int64) (float64, bool) {
	if x != x || math.IsInf(x, 0) || x == 0 || (d >= 0 && math.Abs(x) >= 1<<52) {
		return x, true // NaN, ±Inf, 0, or an integer with no digits to round
	}
	if d >= -22 && d <= 22 {
		// Fast path: x scaled by an exact power of ten, which errs by
		// less than 1e-3 while |y| < 2^40, so a fraction farther than
		// that from a half rounds as the decimal form does; the integer
		// scaled back is then the nearest double to the decimal result.
		p := pow10f[max(d, -d)]
		y := x * p
		if d < 0 {
			y = x / p
		}
		if a := math.Abs(y); a < 1<<40 && math.Abs(a-math.Floor(a)-0.5) > 1e-3 {
			q := math.Round(y)
			if d < 0 {
				return q * p, true
			}
			return q / p, true
		}
	}
	return roundFloatDigits(x, d)
}

// roundFloatDigits is roundFloat on the decimal digits of x.
func roundFloatDigits(x float64, d int64) (float64, bool) {
	switch {
	case d > 400: // past the last digit of any double
		return x, true
	case d < -400: // above the largest double
		return math.Copysign(0, x), true
	}
	var buf [40]byte
	s := strconv.AppendFloat(buf[:0], math.Abs(x), 'e', -1, 64) // m.mmme±XX
	e := bytes.IndexByte(s, 'e')
	exp, _ := strconv.Atoi(string(s[e+1:]))
	m := append(make([]byte, 0, 20), s[0])
	if e > 1 {
		m = append(m, s[2:e]...) // the digits, the first worth 10^exp
	}
	// Keep the digits worth at least 10^-d.
	keep := int64(exp) + 1 + d
	switch {
	case keep >= int64(len(m)):
		return x, true
	case keep < 0:
		return math.Copysign(0, x), true
	}
	up := m[keep] >= '5'
	m = m[:keep]
	if up {
		k := len(m) - 1
		for ; k >= 0 && m[k] == '9'; k-- {
			m[k] = '0'
		}
		if k >= 0 {
			m[k]++
		} else {
			m = append([]byte{'1'}, m...)
		}
	}
	if len(m) == 0 {
		return math.Copysign(0, x), true
	}
	// The kept digits m are worth 10^-d each at the last: m × 10^-d.
	str := string(m) + "e" + strconv.FormatInt(-d, 10)
	if x < 0 {
		str = "-" + str
	}
	v, err := strconv.ParseFloat(str, 64)
	return v, err == nil
}

// buildFloorCeil compiles FLOOR (floor) or CEIL.
func buildFloorCeil(floor bool) funcBuilder {
	return strict(func(e *plan.Func) (kernel, error) {
		xt, t := e.Args[0].Type(), e.Typ
		switch {
		case xt.IsInteger():
			return func(in []*vector, n int, out *result) error {
				copy(out.int64s(n), in[0].i64[:n])
				return nil
			}, nil
		case xt.Physical() == types.PhysFloat64:
			return func(in []*vector, n int, out *result) error {
				r := out.float64s(n)
				for i := range r {
					if floor {
						r[i] = math.Floor(in[0].float64At(i))
					} else {
						r[i] = math.Ceil(in[0].float64At(i))
					}
				}
				return nil
			}, nil
		case xt.Kind == types.Decimal && t.Kind == types.Decimal:
			unit := pow10(int32(xt.Scale))
			return func(in []*vector, n int, out *result) error {
				r := out.decs(n)
				for i := range r {
					q, rem := in[0].decAt(i).Div(unit)
					if floor && rem.Sign() < 0 {
						q = q.Sub(decimal128.FromI64(1))
					} else if !floor && rem.Sign() > 0 {
						q = q.Add(decimal128.FromI64(1))
					}
					v, _ := decScaleUp(q, int32(t.Scale))
					r[i] = v
				}
				return nil
			}, nil
		}
		return nil, notSupported("%s of %s", e.Name, xt)
	})
}

// buildMod compiles MOD(a, b) like a % b: NULL when b is 0.
func buildMod(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 2 {
		return nil, notSupported("MOD with %d arguments", len(e.Args))
	}
	return c.buildArith(&plan.Binary{Op: plan.OpMod, L: e.Args[0], R: e.Args[1], Typ: e.Typ, Pos: e.Pos})
}

// powerKernel is POWER(x, y): NULL where the result is undefined (a
// negative base with a fractional exponent), an error where it overflows.
func powerKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		r := out.float64s(n)
		for i := range r {
			x, y := in[0].float64At(i), in[1].float64At(i)
			v := math.Pow(x, y)
			switch {
			case math.IsNaN(v):
				out.setNull(i, n)
			case math.IsInf(v, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) && out.isValid(i):
				return outOfRange(types.DoubleT, fmt.Sprintf("POWER(%s, %s)", types.FormatFloat(x), types.FormatFloat(y)))
			}
			r[i] = v
		}
		return nil
	}, nil
}

// sqrtKernel is SQRT(x): NULL for negative x, as in MySQL.
func sqrtKernel(e *plan.Func) (kernel, error) {
	return func(in []*vector, n int, out *result) error {
		r := out.float64s(n)
		for i := range r {
			x := in[0].float64At(i)
			if x < 0 {
				out.setNull(i, n)
			}
			r[i] = math.Sqrt(x)
		}
		return nil
	}, nil
}
