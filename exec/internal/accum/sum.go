package accum

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

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
// A batch is first summed per local group in 128 bits (sums and n, dense
// and in cache), then added to each group's state once.
type intSumAgg struct {
	arenaAgg
	avg   bool
	carry map[int32]int64

	sums []Int128 // by local group: the batch's sum
	n    []int64  // and its change of the count
}

func (a *intSumAgg) Words() int { return 2 }
func (a *intSumAgg) Free(s int32) {
	if len(a.carry) > 0 {
		delete(a.carry, s)
	}
}
func (a *intSumAgg) Bytes() int64 { return 16 * int64(len(a.carry)) }

// fold sums the batch's values (rows numbered by lids into m local
// groups) per local group, in 128 bits, into a.sums and a.n.
func (a *intSumAgg) fold(lids []int32, m int, w []int64, arg *Arg) {
	a.sums, a.n = vec.Resize(a.sums, m), vec.Resize(a.n, m)
	sums, cnt := a.sums, a.n
	clear(sums)
	clear(cnt)
	vals := arg.I[:len(lids)]
	if arg.Ones {
		for i, l := range lids {
			sums[l] = sums[l].Add64(vals[i])
			cnt[l]++
		}
		return
	}
	w = w[:len(lids)]
	for i, l := range lids {
		v, wi := vals[i], w[i]
		switch {
		case wi > 0:
			sums[l] = sums[l].Add64(v)
		case wi < 0:
			sums[l] = sums[l].Sub64(v)
		}
		cnt[l] += wi
	}
}

func (a *intSumAgg) Update(b *Batch, w []int64, arg *Arg) error {
	a.fold(b.Lids, len(b.Touched), w, arg)
	sums, cnt := a.sums, a.n
	for j, s := range b.Touched {
		r := a.row(b, int32(j))
		sum, up := addLow(int64(r[0]), sums[j])
		n := int64(r[1]) + cnt[j]
		if n <= 0 || up != 0 {
			if err := a.settle(r, s, sum, n, up); err != nil {
				return err
			}
			continue
		}
		r[0], r[1] = uint64(sum), uint64(n)
	}
	return nil
}

// addLow adds x to a signed low word old, as the state keeps its sum: it
// returns the new low word and the multiples of 2^64 to carry above it.
func addLow(old int64, x Int128) (sum, up int64) {
	// x is (x.Hi + x.Lo's top bit)·2^64 + int64(x.Lo).
	lo := int64(x.Lo)
	up = x.Hi + int64(x.Lo>>63)
	sum = old + lo
	if (old^sum)&(lo^sum) < 0 {
		up += int64(b2i(lo > 0)*2 - 1)
	}
	return sum, up
}

// settle sets the state of slot s, whose words are r, to the low word sum
// of n values, with up more multiples of 2^64 above it: Update's end when
// the count falls to zero or below or the sum carries.
func (a *intSumAgg) settle(r []uint64, s int32, sum, n, up int64) error {
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

// value returns the sum of slot s, whose words are r.
func (a *intSumAgg) value(r []uint64, s int32) Int128 {
	var carry int64
	if len(a.carry) > 0 {
		carry = a.carry[s]
	}
	return int128Of(r[0], carry)
}

func (a *intSumAgg) Merge(dst, src int32) error {
	d, r := a.slot(dst), a.slot(src)
	sum, up := addLow(int64(d[0]), a.value(r, src))
	return a.settle(d, dst, sum, int64(d[1])+int64(r[1]), up)
}

func (a *intSumAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j, s := range b.Touched {
		r := a.row(b, int32(j))
		if err := a.put(dst, j, a.value(r, s), int64(r[1])); err != nil {
			return err
		}
	}
	return nil
}

// put writes the result of a sum of n values to value j of dst: NULL
// without values (the sum is then 0), the average for AVG, else SUM's
// BIGINT, failing beyond it.
func (a *intSumAgg) put(dst *Vector, j int, sum Int128, n int64) error {
	dst.Valid[j] = n > 0
	if a.avg {
		dst.F[j] = sum.Float64() / float64(n)
		return nil
	}
	v, err := sum.Int64()
	dst.I[j] = v
	return err
}

// floatSumAgg is SUM or AVG over doubles, in three arena words: the running
// sum, its compensation (AddCompensated) and the number of non-NULL values.
// Infinities and NaNs are counted apart (sparsely, Specials), so that
// retracting them restores a finite sum.
type floatSumAgg struct {
	arenaAgg
	avg     bool
	special map[int32]Specials
	partial []partialSum // Partial's: by local group, the batch's sum
}

func (a *floatSumAgg) Words() int { return 3 }
func (a *floatSumAgg) Free(s int32) {
	if len(a.special) > 0 {
		delete(a.special, s)
	}
}
func (a *floatSumAgg) Bytes() int64 { return 32 * int64(len(a.special)) }

func (a *floatSumAgg) Update(b *Batch, w []int64, arg *Arg) error {
	vals := arg.F
	// Row by row, in the batch's order, into each group's state: a double's
	// sum depends on the order of its terms, and summing a batch per group
	// first would round differently from summing the same rows one by one.
	for i, l := range b.Lids {
		wi := w[i]
		if wi == 0 {
			continue
		}
		s, r := b.Touched[l], a.row(b, l)
		v := vals[i]
		if IsSpecial(v) {
			a.addSpecial(s, v, wi)
		} else {
			x := v
			if wi < 0 {
				x = -v
			}
			sum, c := AddCompensated(math.Float64frombits(r[0]), math.Float64frombits(r[1]), x)
			r[0], r[1] = math.Float64bits(sum), math.Float64bits(c)
		}
		if n := int64(r[2]) + wi; n > 0 {
			r[2] = uint64(n)
		} else if err := a.empty(r, s, n); err != nil {
			return err
		}
	}
	return nil
}

// empty leaves slot s, whose words are r, with n values (n <= 0): none,
// or an error for fewer.
func (a *floatSumAgg) empty(r []uint64, s int32, n int64) error {
	if n < 0 {
		return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
	}
	r[0], r[1], r[2] = 0, 0, 0
	delete(a.special, s)
	return nil
}

func (a *floatSumAgg) addSpecial(s int32, v float64, w int64) {
	if a.special == nil {
		a.special = make(map[int32]Specials)
	}
	sp := a.special[s]
	sp.Add(v, w)
	if sp == (Specials{}) {
		delete(a.special, s)
	} else {
		a.special[s] = sp
	}
}

func (a *floatSumAgg) Merge(dst, src int32) error {
	d, r := a.slot(dst), a.slot(src)
	sum, c := AddCompensated(math.Float64frombits(d[0]), math.Float64frombits(d[1]), math.Float64frombits(r[0]))
	d[0], d[1] = math.Float64bits(sum), math.Float64bits(c+math.Float64frombits(r[1]))
	if sp, ok := a.special[src]; ok {
		for i, v := range [...]float64{math.Inf(1), math.Inf(-1), math.NaN()} {
			if sp[i] != 0 {
				a.addSpecial(dst, v, sp[i])
			}
		}
	}
	if n := int64(d[2]) + int64(r[2]); n > 0 {
		d[2] = uint64(n)
		return nil
	}
	return a.empty(d, dst, 0)
}

func (a *floatSumAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j, s := range b.Touched {
		r := a.row(b, int32(j))
		sum := math.Float64frombits(r[0]) + math.Float64frombits(r[1])
		if len(a.special) > 0 {
			if sp, ok := a.special[s]; ok {
				sum = sp.Apply(sum)
			}
		}
		a.put(dst, j, sum, int64(r[2]))
	}
	return nil
}

// put writes the result of a sum of n values to value j of dst: NULL
// without values, the average for AVG, else the sum.
func (a *floatSumAgg) put(dst *Vector, j int, sum float64, n int64) {
	if dst.Valid[j] = n > 0; n > 0 && a.avg {
		sum /= float64(n)
	}
	dst.F[j] = sum
}

// decSumAgg is SUM or AVG over DECIMAL(p,s), in three arena words: the
// exact decimal128 sum at scale s (low and high words) and the number of
// non-NULL values. SUM's result is DECIMAL(38,s) and fails beyond 38
// digits.
type decSumAgg struct {
	arenaAgg
	avg   bool
	scale int32
	sums  []decimal128.Num // Partial's: by local group, the batch's sum
	n     []int64          // and its count
}

func (a *decSumAgg) Words() int { return 3 }
func (a *decSumAgg) Free(int32) {}

func (a *decSumAgg) Update(b *Batch, w []int64, arg *Arg) error {
	vals := arg.D
	for i, l := range b.Lids {
		wi := w[i]
		if wi == 0 {
			continue
		}
		x := vals[i]
		if wi < 0 {
			x = x.Negate()
		}
		if err := a.add(a.row(b, l), x, wi); err != nil {
			return err
		}
	}
	return nil
}

// add adds the sum x of n values to the state in r.
func (a *decSumAgg) add(r []uint64, x decimal128.Num, n int64) error {
	res, err := AddDecimal(decimal128.New(int64(r[1]), r[0]), x)
	if err != nil {
		return err
	}
	n += int64(r[2])
	switch {
	case n < 0:
		return fmt.Errorf("SUM: %w", aggstate.ErrNegativeCount)
	case n == 0:
		res = decimal128.Num{}
	}
	r[0], r[1], r[2] = res.LowBits(), uint64(res.HighBits()), uint64(n)
	return nil
}

func (a *decSumAgg) Merge(dst, src int32) error {
	r := a.slot(src)
	return a.add(a.slot(dst), decimal128.New(int64(r[1]), r[0]), int64(r[2]))
}

func (a *decSumAgg) Result(b *Batch, _ []int64, dst *Vector) error {
	for j := range b.Touched {
		r := a.row(b, int32(j))
		if err := a.put(dst, j, decimal128.New(int64(r[1]), r[0]), int64(r[2])); err != nil {
			return err
		}
	}
	return nil
}

// put writes the result of a sum of n values to value j of dst: NULL
// without values, the average for AVG, else SUM's DECIMAL(38,s), failing
// beyond 38 digits.
func (a *decSumAgg) put(dst *Vector, j int, sum decimal128.Num, n int64) error {
	switch {
	case n == 0:
		dst.Valid[j] = false
	case a.avg:
		dst.F[j], dst.Valid[j] = sum.ToFloat64(a.scale)/float64(n), true
	default:
		v, err := DecimalSum(sum)
		dst.D[j], dst.Valid[j] = v, true
		return err
	}
	return nil
}
