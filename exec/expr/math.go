package expr

import (
	"fmt"
	"math"

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
					r[i] = 0
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
				switch {
				case d == 0:
					r[i] = math.Round(x)
				case d > 15 || d < -308:
					r[i] = x
					if d < 0 {
						r[i] = 0
					}
				default:
					p := math.Pow10(int(d))
					r[i] = math.Round(x*p) / p
				}
			}
			return nil
		}
	case xt.Kind == types.Decimal && t.Kind == types.Decimal:
		xs, s, prec := int32(xt.Scale), int32(t.Scale), int32(t.Precision)
		k = func(in []*vector, n int, out *result) error {
			r := out.decs(n)
			for i := range r {
				x, d := in[0].decAt(i), digits(in, i)
				v, ok := x, true
				if drop := int64(xs) - d; drop > 38 {
					v = decimal128.Num{}
				} else if drop > 0 {
					v, ok = decScaleUp(decScaleDown(x, int32(drop)), int32(drop))
				}
				if ok {
					v, ok = decRescale(v, xs, s)
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
	return c.buildArith(&plan.Binary{Op: plan.OpMod, L: e.Args[0], R: e.Args[1], Typ: e.Typ})
}

// powerKernel is POWER(x, y): NULL where the result is undefined (a
// negative base with a fractional exponent), an error where it overflows.
func powerKernel(e *plan.Func) (kernel, error) {
	if err := argsOf(e, types.PhysFloat64); err != nil {
		return nil, err
	}
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
	if err := argsOf(e, types.PhysFloat64); err != nil {
		return nil, err
	}
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
