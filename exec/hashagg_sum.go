package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/aggstate"
)

// intSumAgg is SUM or AVG over integers, in two arena words: the low 64
// bits of the sum (a wrapping int64) and the number of non-NULL values. The
// sum is exact in 128 bits: carry (sparse, almost always empty) holds the
// multiples of 2^64 above the low word, so intermediate overflows that
// later retractions undo are harmless and only a result beyond BIGINT
// fails.
type intSumAgg struct {
	arenaAgg
	avg   bool
	carry map[int32]int64
}

func (a *intSumAgg) words() int        { return 2 }
func (a *intSumAgg) free(s int32)      { delete(a.carry, s) }
func (a *intSumAgg) stateBytes() int64 { return 16 * int64(len(a.carry)) }

func (a *intSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.i
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		r := a.at(s)
		v, lo := vals[i], int64(r[0])
		var sum int64
		if wi > 0 {
			sum = lo + v
			if (lo^sum)&(v^sum) < 0 {
				a.addCarry(s, v > 0)
			}
		} else {
			sum = lo - v
			if (lo^v)&(lo^sum) < 0 {
				a.addCarry(s, v < 0)
			}
		}
		n := int64(r[1]) + wi
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			sum = 0
			delete(a.carry, s)
		}
		r[0], r[1] = uint64(sum), uint64(n)
	}
	return nil
}

// addCarry records that the low word of slot s wrapped around, upwards or
// downwards.
func (a *intSumAgg) addCarry(s int32, up bool) {
	if a.carry == nil {
		a.carry = make(map[int32]int64)
	}
	c := a.carry[s] - 1
	if up {
		c += 2
	}
	if c == 0 {
		delete(a.carry, s)
	} else {
		a.carry[s] = c
	}
}

func (a *intSumAgg) result(slots []int32, _ []int64, dst *aggVec) error {
	for j, s := range slots {
		r := a.at(s)
		lo, n := int64(r[0]), int64(r[1])
		if dst.valid[j] = n > 0; n == 0 {
			continue
		}
		var hi int64
		if len(a.carry) > 0 {
			hi = a.carry[s]
		}
		if a.avg {
			dst.f[j] = (float64(hi)*(1<<64) + float64(lo)) / float64(n)
			continue
		}
		if hi != 0 {
			return fmt.Errorf("BIGINT value is out of range in SUM: %w", ErrAggOverflow)
		}
		dst.i[j] = lo
	}
	return nil
}

// floatSumAgg is SUM or AVG over doubles, in three arena words: the running
// sum, its Neumaier compensation (so that retracting a large value does not
// wipe out the small ones that remain) and the number of non-NULL values.
// Infinities and NaNs are counted apart (sparsely), so that retracting them
// restores a finite sum.
type floatSumAgg struct {
	arenaAgg
	avg     bool
	special map[int32][3]int64 // +Inf, -Inf and NaN counts by slot
}

func (a *floatSumAgg) words() int        { return 3 }
func (a *floatSumAgg) free(s int32)      { delete(a.special, s) }
func (a *floatSumAgg) stateBytes() int64 { return 32 * int64(len(a.special)) }

func (a *floatSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.f
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		r := a.at(s)
		v := vals[i]
		if math.IsInf(v, 0) || v != v {
			a.addSpecial(s, v, wi)
		} else {
			x := v
			if wi < 0 {
				x = -v
			}
			sum, c := math.Float64frombits(r[0]), math.Float64frombits(r[1])
			t := sum + x
			if math.Abs(sum) >= math.Abs(x) {
				c += (sum - t) + x
			} else {
				c += (x - t) + sum
			}
			r[0], r[1] = math.Float64bits(t), math.Float64bits(c)
		}
		n := int64(r[2]) + wi
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			r[0], r[1] = 0, 0
			delete(a.special, s)
		}
		r[2] = uint64(n)
	}
	return nil
}

func (a *floatSumAgg) addSpecial(s int32, v float64, w int64) {
	if a.special == nil {
		a.special = make(map[int32][3]int64)
	}
	sp := a.special[s]
	switch {
	case math.IsInf(v, 1):
		sp[0] += w
	case math.IsInf(v, -1):
		sp[1] += w
	default:
		sp[2] += w
	}
	if sp == [3]int64{} {
		delete(a.special, s)
	} else {
		a.special[s] = sp
	}
}

func (a *floatSumAgg) result(slots []int32, _ []int64, dst *aggVec) error {
	for j, s := range slots {
		r := a.at(s)
		n := int64(r[2])
		if dst.valid[j] = n > 0; n == 0 {
			continue
		}
		sum := math.Float64frombits(r[0]) + math.Float64frombits(r[1])
		if len(a.special) > 0 {
			if sp, ok := a.special[s]; ok {
				switch {
				case sp[2] > 0 || (sp[0] > 0 && sp[1] > 0):
					sum = math.NaN()
				case sp[0] > 0:
					sum = math.Inf(1)
				case sp[1] > 0:
					sum = math.Inf(-1)
				}
			}
		}
		if a.avg {
			sum /= float64(n)
		}
		dst.f[j] = sum
	}
	return nil
}

// decSumAgg is SUM or AVG over DECIMAL(p,s), in three arena words: the
// exact decimal128 sum at scale s (low and high words) and the number of
// non-NULL values. SUM's result is DECIMAL(38,s) and fails beyond 38
// digits.
type decSumAgg struct {
	arenaAgg
	avg   bool
	scale int32
}

func (a *decSumAgg) words() int { return 3 }
func (a *decSumAgg) free(int32) {}

func (a *decSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.d
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		r := a.at(s)
		x := vals[i]
		if wi < 0 {
			x = x.Negate()
		}
		sum := decimal128.New(int64(r[1]), r[0])
		res := sum.Add(x)
		if (sum.Sign() < 0) == (x.Sign() < 0) && (res.Sign() < 0) != (sum.Sign() < 0) {
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", ErrAggOverflow)
		}
		n := int64(r[2]) + wi
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			res = decimal128.Num{}
		}
		r[0], r[1], r[2] = res.LowBits(), uint64(res.HighBits()), uint64(n)
	}
	return nil
}

func (a *decSumAgg) result(slots []int32, _ []int64, dst *aggVec) error {
	for j, s := range slots {
		r := a.at(s)
		n := int64(r[2])
		if dst.valid[j] = n > 0; n == 0 {
			continue
		}
		sum := decimal128.New(int64(r[1]), r[0])
		if a.avg {
			dst.f[j] = sum.ToFloat64(a.scale) / float64(n)
			continue
		}
		if !sum.FitsInPrecision(types.MaxDecimalPrecision) {
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", ErrAggOverflow)
		}
		dst.d[j] = sum
	}
	return nil
}
