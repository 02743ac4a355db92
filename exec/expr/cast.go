package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// buildCast compiles a conversion of arg from type from to type to.
func (c *compiler) buildCast(arg node, from, to types.T) (node, error) {
	if from.Kind == types.Null {
		return newConst(types.NullDatum, to), nil
	}
	if castIsIdentity(from, to) {
		return arg, nil
	}
	k, err := castKernel(from, to)
	if err != nil {
		return nil, err
	}
	return newFn(k, true, arg), nil
}

// castIsIdentity reports whether values of from are already values of to.
func castIsIdentity(from, to types.T) bool {
	if from == to {
		return true
	}
	if to.Kind == types.JSON {
		return false // text becomes JSON by being checked and normalized
	}
	fp, tp := from.Physical(), to.Physical()
	if fp != tp {
		return false
	}
	switch tp {
	case types.PhysInt64:
		flo, fhi, _ := intRange(from)
		tlo, thi, _ := intRange(to)
		return tlo <= flo && fhi <= thi
	case types.PhysDecimal:
		return false
	case types.PhysTimestamp:
		return to.Fsp >= from.Fsp
	}
	return true
}

// intRange returns the bounds of an integer type; narrow is false for BIGINT.
func intRange(t types.T) (lo, hi int64, narrow bool) {
	switch t.Kind {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8, true
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16, true
	case types.Int:
		return math.MinInt32, math.MaxInt32, true
	}
	return math.MinInt64, math.MaxInt64, false
}

// castFail reports that row i of in (of type from) cannot be cast to to:
// an out-of-range error for numbers, a conversion error for strings.
func castFail(in *vector, i int, from, to types.T) error {
	if from.Physical() == types.PhysString {
		return badCast(sqlValue(in, i, from), to)
	}
	return &RowError{Kind: OutOfRange, Msg: fmt.Sprintf("%s value is out of range in 'CAST(%s AS %s)'", to, sqlValue(in, i, from), to)}
}

// castKernel returns the kernel converting from to to.
func castKernel(from, to types.T) (kernel, error) {
	fp, tp := from.Physical(), to.Physical()
	if to.Kind == types.JSON {
		return toJSONKernel(from)
	}
	if tp == types.PhysString {
		return toStringKernel(from)
	}
	if fp == types.PhysString {
		return fromStringKernel(to)
	}
	switch tp {
	case types.PhysInt64:
		return toIntKernel(from, to)
	case types.PhysFloat64:
		return toFloatKernel(from)
	case types.PhysDecimal:
		return toDecimalKernel(from, to)
	case types.PhysBool:
		return toBoolKernel(from)
	case types.PhysDate32:
		if fp == types.PhysTimestamp {
			return func(in []*vector, n int, out *result) error {
				r := out.int32s(n)
				for i := range r {
					d := floorDiv(in[0].int64At(i), types.MsPerDay)
					if d != int64(int32(d)) && out.isValid(i) {
						return castFail(in[0], i, from, to)
					}
					r[i] = int32(d)
				}
				return nil
			}, nil
		}
	case types.PhysTimestamp:
		switch fp {
		case types.PhysDate32:
			return func(in []*vector, n int, out *result) error {
				r := out.int64s(n)
				for i := range r {
					r[i] = int64(in[0].int32At(i)) * types.MsPerDay
				}
				return nil
			}, nil
		case types.PhysTimestamp:
			// Rounding to fewer digits may carry past 9999-12-31
			// 23:59:59: out of range.
			fsp := int(to.Fsp)
			return func(in []*vector, n int, out *result) error {
				r := out.int64s(n)
				for i := range r {
					v := roundTs(in[0].int64At(i), fsp)
					if !types.TimestampInRange(v) && out.isValid(i) {
						return castFail(in[0], i, from, to)
					}
					r[i] = v
				}
				return nil
			}, nil
		}
	}
	return nil, notSupported("CAST(%s AS %s)", from, to)
}

// roundTs rounds the timestamp ms to fsp digits (types.RoundToFsp) without
// overflowing near the ends of int64, where values are out of range anyway.
func roundTs(ms int64, fsp int) int64 {
	if ms > math.MaxInt64-types.MsPerSecond || ms < math.MinInt64+types.MsPerSecond {
		return ms
	}
	return types.RoundToFsp(ms, fsp)
}

// toIntKernel converts numbers and booleans to an integer type, rounding
// half away from zero (as MySQL) and checking the target's range.
func toIntKernel(from, to types.T) (kernel, error) {
	lo, hi, narrow := intRange(to)
	check := func(in []*vector, out *result, r []int64) error {
		if !narrow {
			return nil
		}
		for i, v := range r {
			if (v < lo || v > hi) && out.isValid(i) {
				return castFail(in[0], i, from, to)
			}
		}
		return nil
	}
	switch from.Physical() {
	case types.PhysInt64:
		return func(in []*vector, n int, out *result) error {
			return check(in, out, append(out.int64s(n)[:0], in[0].i64[:n]...))
		}, nil
	case types.PhysBool:
		return func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				r[i] = int64(b2i(in[0].boolAt(i)))
			}
			return check(in, out, r)
		}, nil
	case types.PhysFloat64:
		return func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				f := math.Round(in[0].float64At(i))
				if !(f >= -1<<63 && f < 1<<63) {
					if out.isValid(i) {
						return castFail(in[0], i, from, to)
					}
					f = 0
				}
				r[i] = int64(f)
			}
			return check(in, out, r)
		}, nil
	case types.PhysDecimal:
		scale := int32(from.Scale)
		return func(in []*vector, n int, out *result) error {
			r := out.int64s(n)
			for i := range r {
				v, ok := decToInt64(decScaleDown(in[0].decAt(i), scale))
				if !ok && out.isValid(i) {
					return castFail(in[0], i, from, to)
				}
				r[i] = v
			}
			return check(in, out, r)
		}, nil
	}
	return nil, notSupported("CAST(%s AS %s)", from, to)
}

// toFloatKernel converts numbers and booleans to DOUBLE.
func toFloatKernel(from types.T) (kernel, error) {
	scale := int32(from.Scale)
	switch p := from.Physical(); p {
	case types.PhysInt64, types.PhysBool, types.PhysDecimal:
		return func(in []*vector, n int, out *result) error {
			r := out.float64s(n)
			switch p {
			case types.PhysInt64:
				for i, x := range in[0].i64[:n] {
					r[i] = float64(x)
				}
			case types.PhysBool:
				for i := range r {
					r[i] = float64(b2i(in[0].boolAt(i)))
				}
			default:
				for i := range r {
					r[i] = decToFloat64(in[0].decAt(i), scale)
				}
			}
			return nil
		}, nil
	}
	return nil, notSupported("CAST(%s AS DOUBLE)", from)
}

// pow10f holds 10^k for k <= 22, the powers of ten a double holds exactly.
var pow10f = func() (p [23]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decToFloat64 returns the double nearest to v at scale. An unscaled value
// below 2^53 and a scale up to 22 are exact doubles, and one IEEE division
// rounds their quotient correctly; anything else goes through math/big.
// (decimal128's ToFloat64 multiplies by an inexact 10^-scale: 0.07 became
// 0.07000000000000001.)
func decToFloat64(v decimal128.Num, scale int32) float64 {
	if x, ok := decToInt64(v); ok && x > -1<<53 && x < 1<<53 && scale >= 0 && scale < int32(len(pow10f)) {
		return float64(x) / pow10f[scale]
	}
	f, _ := new(big.Rat).SetFrac(v.BigInt(), pow10(scale).BigInt()).Float64()
	return f
}

// toDecimalKernel converts numbers and booleans to DECIMAL(p,s), rounding
// half away from zero when digits are dropped.
func toDecimalKernel(from, to types.T) (kernel, error) {
	prec, scale := int32(to.Precision), int32(to.Scale)
	var conv func(v *vector, i int) (decimal128.Num, bool)
	switch from.Physical() {
	case types.PhysInt64:
		conv = func(v *vector, i int) (decimal128.Num, bool) {
			return decScaleUp(decimal128.FromI64(v.int64At(i)), scale)
		}
	case types.PhysBool:
		conv = func(v *vector, i int) (decimal128.Num, bool) {
			return decScaleUp(decimal128.FromI64(int64(b2i(v.boolAt(i)))), scale)
		}
	case types.PhysDecimal:
		fs := int32(from.Scale)
		conv = func(v *vector, i int) (decimal128.Num, bool) { return decRescale(v.decAt(i), fs, scale) }
	case types.PhysFloat64:
		conv = func(v *vector, i int) (decimal128.Num, bool) {
			f := v.float64At(i)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return decimal128.Num{}, false
			}
			// Round the shortest decimal form of f, half away from zero,
			// as MySQL does: 1.005 becomes 1.01, not 1.00.
			var buf [32]byte
			return parseDecimal(string(strconv.AppendFloat(buf[:0], f, 'g', -1, 64)), prec, scale)
		}
	default:
		return nil, notSupported("CAST(%s AS %s)", from, to)
	}
	return func(in []*vector, n int, out *result) error {
		r := out.decs(n)
		for i := range r {
			d, ok := conv(in[0], i)
			if (!ok || !decFits(d, prec)) && out.isValid(i) {
				return castFail(in[0], i, from, to)
			}
			r[i] = d
		}
		return nil
	}, nil
}

// toBoolKernel converts numbers to BOOLEAN: non-zero is TRUE.
func toBoolKernel(from types.T) (kernel, error) {
	switch p := from.Physical(); p {
	case types.PhysInt64, types.PhysFloat64, types.PhysDecimal:
		return func(in []*vector, n int, out *result) error {
			r := out.bools(n)
			for i := range r {
				switch p {
				case types.PhysInt64:
					r[i] = in[0].int64At(i) != 0
				case types.PhysFloat64:
					r[i] = in[0].float64At(i) != 0
				default:
					r[i] = in[0].decAt(i).Sign() != 0
				}
			}
			return nil
		}, nil
	}
	return nil, notSupported("CAST(%s AS BOOLEAN)", from)
}
