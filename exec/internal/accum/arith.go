package accum

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
)

// The typed arithmetic of SUM and AVG, which every aggregate family
// computes alike: the accumulators here, and the window aggregate over its
// frames. A result must not depend on the family that computed it.

// The errors of a SUM beyond its result type.
var (
	errSumBigInt  = fmt.Errorf("BIGINT value is out of range in SUM: %w", ErrOverflow)
	errSumDecimal = fmt.Errorf("DECIMAL value is out of range in SUM: %w", ErrOverflow)
)

// Int128 is an exact integer in 128 bits, two's complement: Hi·2^64 + Lo,
// Lo unsigned. Sums of BIGINTs are kept in it, so that only a result
// beyond BIGINT fails, never a partial sum that later values bring back.
type Int128 struct {
	Lo uint64
	Hi int64
}

// Add64 returns x + v.
func (x Int128) Add64(v int64) Int128 {
	// v sign-extended to 128 bits is (uint64(v), v>>63).
	lo, c := bits.Add64(x.Lo, uint64(v), 0)
	return Int128{lo, x.Hi + v>>63 + int64(c)}
}

// Sub64 returns x − v.
func (x Int128) Sub64(v int64) Int128 {
	lo, c := bits.Sub64(x.Lo, uint64(v), 0)
	return Int128{lo, x.Hi - v>>63 - int64(c)}
}

// Add returns x + y.
func (x Int128) Add(y Int128) Int128 {
	lo, c := bits.Add64(x.Lo, y.Lo, 0)
	return Int128{lo, x.Hi + y.Hi + int64(c)}
}

// Sub returns x − y.
func (x Int128) Sub(y Int128) Int128 {
	lo, c := bits.Sub64(x.Lo, y.Lo, 0)
	return Int128{lo, x.Hi - y.Hi - int64(c)}
}

// Int64 returns x as SUM's BIGINT result, failing when it does not fit.
func (x Int128) Int64() (int64, error) {
	if x.Hi != int64(x.Lo)>>63 {
		return 0, errSumBigInt
	}
	return int64(x.Lo), nil
}

// Float64 returns x as a double, rounded as every family rounds AVG's
// sum: the multiples of 2^64 above the signed low word, scaled, plus the
// low word.
func (x Int128) Float64() float64 {
	return float64(x.Hi+int64(x.Lo>>63))*(1<<64) + float64(int64(x.Lo))
}

// int128Of returns the value carry·2^64 + int64(lo): a signed low word and
// the multiples of 2^64 above it, as the hash aggregate keeps sums.
func int128Of(lo uint64, carry int64) Int128 {
	return Int128{lo, carry - int64(lo>>63)}
}

// AddCompensated adds x to the sum (sum, comp) kept with Neumaier's
// compensation, so that adding and then subtracting a large value does
// not wipe out the small ones around it. x must be finite.
func AddCompensated(sum, comp, x float64) (float64, float64) {
	t := sum + x
	if math.Abs(sum) >= math.Abs(x) {
		comp += (sum - t) + x
	} else {
		comp += (x - t) + sum
	}
	return t, comp
}

// Specials counts the infinities and NaNs of a sum of doubles, kept apart
// from its finite values so that retracting them restores a finite sum:
// +Inf, -Inf and NaN.
type Specials [3]int64

// IsSpecial reports whether v is counted in Specials rather than summed.
func IsSpecial(v float64) bool { return math.IsInf(v, 0) || v != v }

// Add adds w occurrences of v, which IsSpecial.
func (sp *Specials) Add(v float64, w int64) {
	switch {
	case math.IsInf(v, 1):
		sp[0] += w
	case math.IsInf(v, -1):
		sp[1] += w
	default:
		sp[2] += w
	}
}

// Apply returns the sum of the finite values sum and the specials.
func (sp *Specials) Apply(sum float64) float64 {
	switch {
	case sp[2] > 0 || (sp[0] > 0 && sp[1] > 0):
		return math.NaN()
	case sp[0] > 0:
		return math.Inf(1)
	case sp[1] > 0:
		return math.Inf(-1)
	}
	return sum
}

// FloatSum is a sum of doubles: the finite ones compensated
// (AddCompensated), the others counted (Specials).
type FloatSum struct {
	Sum, Comp float64
	Specials  Specials
}

// Add adds v.
func (s *FloatSum) Add(v float64) {
	if IsSpecial(v) {
		s.Specials.Add(v, 1)
		return
	}
	s.Sum, s.Comp = AddCompensated(s.Sum, s.Comp, v)
}

// Value returns the sum.
func (s *FloatSum) Value() float64 { return s.Specials.Apply(s.Sum + s.Comp) }

// AddDecimal returns sum + x, failing when the sum leaves 128 bits.
func AddDecimal(sum, x decimal128.Num) (decimal128.Num, error) {
	res := sum.Add(x)
	if (sum.Sign() < 0) == (x.Sign() < 0) && (res.Sign() < 0) != (sum.Sign() < 0) {
		return sum, errSumDecimal
	}
	return res, nil
}

// DecimalSum returns sum as SUM's DECIMAL(38,s) result, failing beyond 38
// digits.
func DecimalSum(sum decimal128.Num) (decimal128.Num, error) {
	if !sum.FitsInPrecision(types.MaxDecimalPrecision) {
		return sum, errSumDecimal
	}
	return sum, nil
}
