package expr_test

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// arithmetic computes l op r (both non-NULL) of types lt and rt into the
// result type t: integers exactly (a result outside BIGINT is out of
// range), doubles by IEEE, decimals exactly (a result wider than t's
// precision is out of range), dates and timestamps within the years 0000
// to 9999. Division and modulo by zero are NULL.
func arithmetic(op plan.BinOp, l, r types.Datum, lt, rt, t types.T) (types.Datum, error) {
	lp, rp := lt.Physical(), rt.Physical()
	if lp == types.PhysDuration && (rp == types.PhysDate32 || rp == types.PhysTimestamp) {
		l, r, lt, rt, lp, rp = r, l, rt, lt, rp, lp
	}
	switch {
	case lp == types.PhysDate32 && rp == types.PhysDuration:
		return dateArith(op, l.I, r.I, t)
	case lp == types.PhysTimestamp && rp == types.PhysDuration:
		return timestampArith(op, l.I, r.I)
	case lp == types.PhysFloat64:
		return floatArith(op, l.F, r.F, t)
	case lp == types.PhysDecimal:
		return decimalArith(op, l.D.BigInt(), r.D.BigInt(), lt, rt, t)
	}
	return intArith(op, l.I, r.I)
}

// fitsInt64 returns v as an int64 and whether it fits.
func fitsInt64(v *big.Int) (int64, bool) { return v.Int64(), v.IsInt64() }

func intArith(op plan.BinOp, a, b int64) (types.Datum, error) {
	v, err := exactArith(op, big.NewInt(a), big.NewInt(b))
	if v == nil {
		return null, err
	}
	n, ok := fitsInt64(v)
	if !ok {
		return null, outOfRange("%d %s %d", a, op, b)
	}
	return types.IntDatum(n), nil
}

// exactArith computes x op y over integers exactly: DIV truncated toward
// zero, MOD with the sign of the dividend, nil (NULL) for a division by
// zero.
func exactArith(op plan.BinOp, x, y *big.Int) (*big.Int, error) {
	v := new(big.Int)
	switch op {
	case plan.OpAdd:
		v.Add(x, y)
	case plan.OpSub:
		v.Sub(x, y)
	case plan.OpMul:
		v.Mul(x, y)
	case plan.OpIntDiv, plan.OpMod:
		if y.Sign() == 0 {
			return nil, nil
		}
		if op == plan.OpIntDiv {
			v.Quo(x, y)
		} else {
			v.Rem(x, y)
		}
	default:
		return nil, fmt.Errorf("operator %s over exact numbers", op)
	}
	return v, nil
}

func floatArith(op plan.BinOp, x, y float64, t types.T) (types.Datum, error) {
	switch op {
	case plan.OpAdd:
		return types.FloatDatum(x + y), nil
	case plan.OpSub:
		return types.FloatDatum(x - y), nil
	case plan.OpMul:
		return types.FloatDatum(x * y), nil
	}
	if y == 0 {
		return null, nil
	}
	switch op {
	case plan.OpDiv:
		return types.FloatDatum(x / y), nil
	case plan.OpMod:
		return types.FloatDatum(math.Mod(x, y)), nil
	}
	q := math.Trunc(x / y) // DIV into an integer
	if !(q >= -(1<<63) && q < 1<<63) {
		return null, outOfRange("%v DIV %v", x, y)
	}
	return types.IntDatum(int64(q)), nil
}

// decimalArith works on the unscaled values x (scale lt.Scale) and y: a
// product carries both scales, rounded to t's; DIV (of operands of one
// scale) is a BIGINT.
func decimalArith(op plan.BinOp, x, y *big.Int, lt, rt, t types.T) (types.Datum, error) {
	v, err := exactArith(op, x, y)
	if v == nil {
		return null, err
	}
	switch op {
	case plan.OpMul:
		v = rescale(v, int64(lt.Scale)+int64(rt.Scale), int64(t.Scale))
	case plan.OpIntDiv:
		n, ok := fitsInt64(v)
		if !ok {
			return null, outOfRange("DECIMAL DIV")
		}
		return types.IntDatum(n), nil
	}
	if !decimalFits(v, t) {
		return null, outOfRange("%s %s %s does not fit %s", x, op, y, t)
	}
	return types.DecimalDatum(decimal128.FromBigInt(v)), nil
}

// decimalFits reports whether the unscaled v has at most t's precision in
// digits.
func decimalFits(v *big.Int, t types.T) bool {
	return new(big.Int).Abs(v).Cmp(pow10(int64(t.Precision))) < 0
}

// rescale changes the scale of the unscaled v from from to to, rounding
// half away from zero when digits go.
func rescale(v *big.Int, from, to int64) *big.Int {
	if to >= from {
		return new(big.Int).Mul(v, pow10(to-from))
	}
	return roundHalfAway(v, pow10(from-to))
}

// roundHalfAway returns v / d rounded half away from zero (d > 0).
func roundHalfAway(v, d *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(v, d, new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(d) >= 0 {
		q.Add(q, big.NewInt(int64(v.Sign())))
	}
	return q
}

// dateArith is DATE ± INTERVAL: a DATE (the interval is whole days) or a
// TIMESTAMP.
func dateArith(op plan.BinOp, days, iv int64, t types.T) (types.Datum, error) {
	if t.Kind == types.Timestamp {
		return timestampArith(op, days*types.MsPerDay, iv)
	}
	d := shifted(op, days, iv/types.MsPerDay)
	if !d.IsInt64() || !types.DateInRange(d.Int64()) {
		return null, outOfRange("DATE %d %s %d ms", days, op, iv)
	}
	return types.IntDatum(d.Int64()), nil
}

func timestampArith(op plan.BinOp, ms, iv int64) (types.Datum, error) {
	v := shifted(op, ms, iv)
	if !v.IsInt64() || !types.TimestampInRange(v.Int64()) {
		return null, outOfRange("TIMESTAMP %d %s %d ms", ms, op, iv)
	}
	return types.IntDatum(v.Int64()), nil
}

// shifted is base + delta (base - delta for OpSub), exactly.
func shifted(op plan.BinOp, base, delta int64) *big.Int {
	v := big.NewInt(delta)
	if op == plan.OpSub {
		v.Neg(v)
	}
	return v.Add(v, big.NewInt(base))
}
