package agg

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// intSumAgg is SUM or AVG over integers, in two arena words: the low 64
// bits of the sum (a wrapping int64) and the number of non-NULL values. The
// sum is exact in 128 bits: carry (sparse, almost always empty) holds the
// multiples of 2^64 above the low word, so intermediate overflows that
// later retractions undo are harmless and only a result beyond BIGINT
// fails.
//
// A batch is first summed per local group in 128 bits (lo, hi, n, dense
// and in cache), then added to each group's state once.
type intSumAgg struct {
	arenaAgg
	avg   bool
	carry map[int32]int64

	lo []uint64 // by local group: the batch's sum, low word
	hi []int64  // and the multiples of 2^64 above it
	n  []int64  // the batch's change of the count
}

func (a *intSumAgg) words() int        { return 2 }
func (a *intSumAgg) free(s int32)      { delete(a.carry, s) }
func (a *intSumAgg) stateBytes() int64 { return 16 * int64(len(a.carry)) }

func (a *intSumAgg) update(b *batch, w []int64, arg *argCol) error {
	m := len(b.touched)
	a.lo, a.hi, a.n = vec.Resize(a.lo, m), vec.Resize(a.hi, m), vec.Resize(a.n, m)
	lo, hi, cnt := a.lo, a.hi, a.n
	clear(lo)
	clear(hi)
	clear(cnt)
	vals := arg.i[:len(b.lids)]
	w = w[:len(b.lids)]
	for i, l := range b.lids {
		v, wi := vals[i], w[i]
		// v sign-extended to 128 bits is (uint64(v), v>>63).
		switch {
		case wi > 0:
			sum, c := bits.Add64(lo[l], uint64(v), 0)
			lo[l], hi[l] = sum, hi[l]+v>>63+int64(c)
		case wi < 0:
			diff, c := bits.Sub64(lo[l], uint64(v), 0)
			lo[l], hi[l] = diff, hi[l]-v>>63-int64(c)
		}
		cnt[l] += wi
	}
	for j, s := range b.touched {
		// The batch's sum is hi·2^64 + lo with lo unsigned, that is
		// (hi + lo's top bit)·2^64 + int64(lo).
		x, up := int64(lo[j]), hi[j]+int64(lo[j]>>63)
		r := a.row(b, int32(j))
		old := int64(r[0])
		sum := old + x
		if (old^sum)&(x^sum) < 0 {
			up += int64(b2i(x > 0)*2 - 1)
		}
		n := int64(r[1]) + cnt[j]
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			sum = 0
			delete(a.carry, s)
		case up != 0:
			a.addCarry(s, up)
		}
		r[0], r[1] = uint64(sum), uint64(n)
	}
	return nil
}

// addCarry adds up multiples of 2^64 to the sum of slot s.
func (a *intSumAgg) addCarry(s int32, up int64) {
	if a.carry == nil {
		a.carry = make(map[int32]int64)
	}
	if c := a.carry[s] + up; c == 0 {
		delete(a.carry, s)
	} else {
		a.carry[s] = c
	}
}

func (a *intSumAgg) result(b *batch, _ []int64, dst *vector) error {
	for j, s := range b.touched {
		r := a.row(b, int32(j))
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
			return fmt.Errorf("BIGINT value is out of range in SUM: %w", accum.ErrOverflow)
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

func (a *floatSumAgg) update(b *batch, w []int64, arg *argCol) error {
	vals := arg.f
	// Row by row, in the batch's order, into each group's state: a double's
	// sum depends on the order of its terms, and summing a batch per group
	// first would round differently from summing the same rows one by one.
	for i, l := range b.lids {
		wi := w[i]
		if wi == 0 {
			continue
		}
		s, r := b.touched[l], a.row(b, l)
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

func (a *floatSumAgg) result(b *batch, _ []int64, dst *vector) error {
	for j, s := range b.touched {
		r := a.row(b, int32(j))
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

func (a *decSumAgg) update(b *batch, w []int64, arg *argCol) error {
	vals := arg.d
	for i, l := range b.lids {
		wi := w[i]
		if wi == 0 {
			continue
		}
		r := a.row(b, l)
		x := vals[i]
		if wi < 0 {
			x = x.Negate()
		}
		sum := decimal128.New(int64(r[1]), r[0])
		res := sum.Add(x)
		if (sum.Sign() < 0) == (x.Sign() < 0) && (res.Sign() < 0) != (sum.Sign() < 0) {
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", accum.ErrOverflow)
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

func (a *decSumAgg) result(b *batch, _ []int64, dst *vector) error {
	for j := range b.touched {
		r := a.row(b, int32(j))
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
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", accum.ErrOverflow)
		}
		dst.d[j] = sum
	}
	return nil
}
