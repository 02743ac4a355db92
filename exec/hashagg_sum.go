package exec

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/aggstate"
)

// ErrAggOverflow is returned when an aggregate's value does not fit its
// result type (SUM of BIGINTs beyond 64 bits, of DECIMALs beyond 38 digits).
var ErrAggOverflow = errors.New("aggregate value out of range")

// aggState is the state of one aggregate for every group, in columns indexed
// by group slot. Implementations are typed; the interface is called once per
// batch, never per row.
type aggState interface {
	// grow makes room for n slots; new slots are empty.
	grow(n int)
	// update applies a batch: row i adds w[i] (−1, 0 or +1) occurrences of
	// its argument value a to the group in slots[i].
	update(slots []int32, w []int64, a *aggArgCol) error
	// result writes the current value of each group of slots to dst.
	result(slots []int32, dst *aggVec) error
	// free empties the state of slot, whose group lost its last row.
	free(slot int32)
	// stateBytes estimates the memory the state holds.
	stateBytes() int64
	// touch reads the state of each group of slots and returns a value
	// depending on it: a prefetch, so that the cache misses of a large
	// state overlap before the updates (see HashAgg.touchGroups).
	touch(slots []int32) int64
}

// countStarAgg is COUNT(*): the group's row count, which the operator keeps.
type countStarAgg struct{ groups *[]aggGroup }

func (a *countStarAgg) grow(int)                                  {}
func (a *countStarAgg) update([]int32, []int64, *aggArgCol) error { return nil }
func (a *countStarAgg) free(int32)                                {}
func (a *countStarAgg) stateBytes() int64                         { return 0 }
func (a *countStarAgg) touch([]int32) int64                       { return 0 }
func (a *countStarAgg) result(slots []int32, dst *aggVec) error {
	groups := *a.groups
	for j, s := range slots {
		dst.i[j], dst.valid[j] = groups[s].rows, true
	}
	return nil
}

// countAgg is COUNT(x): the number of non-NULL values.
type countAgg struct{ n []int64 }

func (a *countAgg) grow(n int)        { a.n = aggGrow(a.n, n) }
func (a *countAgg) free(s int32)      { a.n[s] = 0 }
func (a *countAgg) stateBytes() int64 { return 8 * int64(len(a.n)) }

func (a *countAgg) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		sum += a.n[s]
	}
	return sum
}

func (a *countAgg) update(slots []int32, w []int64, _ *aggArgCol) error {
	for i, s := range slots {
		if w[i] != 0 {
			if a.n[s] += w[i]; a.n[s] < 0 {
				return fmt.Errorf("COUNT: %w", aggstate.ErrNegativeCount)
			}
		}
	}
	return nil
}

func (a *countAgg) result(slots []int32, dst *aggVec) error {
	for j, s := range slots {
		dst.i[j], dst.valid[j] = a.n[s], true
	}
	return nil
}

// intSumAgg is SUM or AVG over integers. The sum is exact in 128 bits: lo
// holds its low 64 bits as a wrapping int64 and carry (sparse: almost always
// empty) the multiples of 2^64 above them, so intermediate overflows that
// later retractions undo are harmless and only a result beyond BIGINT fails.
type intSumAgg struct {
	avg   bool
	acc   []intSum
	carry map[int32]int64
}

// intSum is one group's integer sum: the low word and the number of
// non-NULL values, side by side so that an update touches one cache line.
type intSum struct{ lo, n int64 }

func (a *intSumAgg) grow(n int) { a.acc = aggGrow(a.acc, n) }

func (a *intSumAgg) free(s int32) {
	a.acc[s] = intSum{}
	delete(a.carry, s)
}

func (a *intSumAgg) stateBytes() int64 { return 16*int64(len(a.acc)) + 16*int64(len(a.carry)) }

func (a *intSumAgg) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		sum += a.acc[s].n
	}
	return sum
}

func (a *intSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.i
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		acc := &a.acc[s]
		v, lo := vals[i], acc.lo
		var r int64
		if wi > 0 {
			r = lo + v
			if (lo^r)&(v^r) < 0 {
				a.addCarry(s, v > 0)
			}
		} else {
			r = lo - v
			if (lo^v)&(lo^r) < 0 {
				a.addCarry(s, v < 0)
			}
		}
		n := acc.n + wi
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			r = 0
			delete(a.carry, s)
		}
		acc.lo, acc.n = r, n
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

func (a *intSumAgg) result(slots []int32, dst *aggVec) error {
	for j, s := range slots {
		acc := a.acc[s]
		dst.valid[j] = acc.n > 0
		if acc.n == 0 {
			continue
		}
		var hi int64
		if len(a.carry) > 0 {
			hi = a.carry[s]
		}
		if a.avg {
			sum := float64(hi)*(1<<64) + float64(acc.lo)
			dst.f[j] = sum / float64(acc.n)
			continue
		}
		if hi != 0 {
			return fmt.Errorf("BIGINT value is out of range in SUM: %w", ErrAggOverflow)
		}
		dst.i[j] = acc.lo
	}
	return nil
}

// floatSumAgg is SUM or AVG over doubles, summed with Neumaier's
// compensation so that retracting a large value does not wipe out the small
// ones that remain. Infinities and NaNs are counted apart (sparsely), so that
// retracting them restores a finite sum.
type floatSumAgg struct {
	avg     bool
	acc     []floatSum
	special map[int32][3]int64 // +Inf, -Inf and NaN counts by slot
}

// floatSum is one group's double sum: the running sum, its compensation and
// the number of non-NULL values.
type floatSum struct {
	s, c float64
	n    int64
}

func (a *floatSumAgg) grow(n int) { a.acc = aggGrow(a.acc, n) }

func (a *floatSumAgg) free(s int32) {
	a.acc[s] = floatSum{}
	delete(a.special, s)
}

func (a *floatSumAgg) stateBytes() int64 { return 24*int64(len(a.acc)) + 32*int64(len(a.special)) }

func (a *floatSumAgg) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		sum += a.acc[s].n
	}
	return sum
}

func (a *floatSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.f
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		acc := &a.acc[s]
		v := vals[i]
		if math.IsInf(v, 0) || v != v {
			a.addSpecial(s, v, wi)
		} else {
			x := v
			if wi < 0 {
				x = -v
			}
			t := acc.s + x
			if math.Abs(acc.s) >= math.Abs(x) {
				acc.c += (acc.s - t) + x
			} else {
				acc.c += (x - t) + acc.s
			}
			acc.s = t
		}
		acc.n += wi
		switch {
		case acc.n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case acc.n == 0:
			acc.s, acc.c = 0, 0
			delete(a.special, s)
		}
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

func (a *floatSumAgg) result(slots []int32, dst *aggVec) error {
	for j, s := range slots {
		acc := a.acc[s]
		dst.valid[j] = acc.n > 0
		if acc.n == 0 {
			continue
		}
		sum := acc.s + acc.c
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
			sum /= float64(acc.n)
		}
		dst.f[j] = sum
	}
	return nil
}

// decSumAgg is SUM or AVG over DECIMAL(p,s): an exact decimal128 sum at
// scale s. SUM's result is DECIMAL(38,s) and fails beyond 38 digits.
type decSumAgg struct {
	avg   bool
	scale int32
	acc   []decSum
}

// decSum is one group's decimal sum and its number of non-NULL values.
type decSum struct {
	s decimal128.Num
	n int64
}

func (a *decSumAgg) grow(n int) { a.acc = aggGrow(a.acc, n) }

func (a *decSumAgg) free(s int32) { a.acc[s] = decSum{} }

func (a *decSumAgg) stateBytes() int64 { return 24 * int64(len(a.acc)) }

func (a *decSumAgg) touch(slots []int32) int64 {
	var sum int64
	for _, s := range slots {
		sum += a.acc[s].n
	}
	return sum
}

func (a *decSumAgg) update(slots []int32, w []int64, arg *aggArgCol) error {
	vals := arg.d
	for i, s := range slots {
		wi := w[i]
		if wi == 0 {
			continue
		}
		acc := &a.acc[s]
		x := vals[i]
		if wi < 0 {
			x = x.Negate()
		}
		r := acc.s.Add(x)
		if (acc.s.Sign() < 0) == (x.Sign() < 0) && (r.Sign() < 0) != (acc.s.Sign() < 0) {
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", ErrAggOverflow)
		}
		n := acc.n + wi
		switch {
		case n < 0:
			return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
		case n == 0:
			r = decimal128.Num{}
		}
		acc.s, acc.n = r, n
	}
	return nil
}

func (a *decSumAgg) result(slots []int32, dst *aggVec) error {
	for j, s := range slots {
		acc := a.acc[s]
		dst.valid[j] = acc.n > 0
		if acc.n == 0 {
			continue
		}
		if a.avg {
			dst.f[j] = acc.s.ToFloat64(a.scale) / float64(acc.n)
			continue
		}
		if !acc.s.FitsInPrecision(types.MaxDecimalPrecision) {
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", ErrAggOverflow)
		}
		dst.d[j] = acc.s
	}
	return nil
}

// aggGrow extends s to n elements with zero values, amortized.
func aggGrow[E any](s []E, n int) []E {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	return append(s, make([]E, n-len(s))...)
}
