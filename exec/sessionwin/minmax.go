package sessionwin

import (
	"cmp"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// decAcc is a session's exact decimal sum (at the argument's scale) and
// the number of values.
type decAcc struct {
	sum decimal128.Num
	n   int64
}

// decSum is SUM (DECIMAL(38,s)) or AVG (DOUBLE) over DECIMAL(p,s). A sum
// beyond 128 bits fails at once; one beyond 38 digits when it is emitted.
type decSum struct {
	avg   bool
	scale int32
	acc   aggstate.Column[decAcc]
	valid []bool
}

func (a *decSum) grow(n int)   { a.acc.Grow(n) }
func (a *decSum) free(s int32) { *a.acc.At(s) = decAcc{} }
func (a *decSum) bytes() int64 { return a.acc.Bytes() }

// one adds the value v to slot s.
func (a *decSum) one(s int32, v decimal128.Num) error {
	x := a.acc.At(s)
	if err := decAdd(&x.sum, v); err != nil {
		return err
	}
	x.n++
	return nil
}

// decAdd adds v to *sum, failing when the sum leaves 128 bits.
func decAdd(sum *decimal128.Num, v decimal128.Num) error {
	res := sum.Add(v)
	if (sum.Sign() < 0) == (v.Sign() < 0) && (res.Sign() < 0) != (sum.Sign() < 0) {
		return fmt.Errorf("DECIMAL value is out of range in SUM: %w", accum.ErrOverflow)
	}
	*sum = res
	return nil
}

func (a *decSum) add(slots []int32, arg arrow.Array) error {
	vals, _, err := loadDecimals(arg, nil)
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s >= 0 && (valid == nil || valid[i]) {
			if err := a.one(s, vals[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (a *decSum) merge(d, s int32) error {
	x, y := a.acc.At(d), a.acc.At(s)
	x.n += y.n
	return decAdd(&x.sum, y.sum)
}

func (a *decSum) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		x := a.acc.At(s)
		switch {
		case x.n == 0:
			dst[j] = types.NullDatum
		case a.avg:
			dst[j] = types.FloatDatum(x.sum.ToFloat64(a.scale) / float64(x.n))
		case !x.sum.FitsInPrecision(types.MaxDecimalPrecision):
			return fmt.Errorf("DECIMAL value is out of range in SUM: %w", accum.ErrOverflow)
		default:
			dst[j] = types.DecimalDatum(x.sum)
		}
	}
	return nil
}

// extreme is a session's extreme value so far; ok is false before the
// first non-NULL value.
type extreme[V any] struct {
	v  V
	ok bool
}

// minMax is MIN or MAX over values ordered by their Go order: int64s
// (BOOLEAN, integers, DATE, TIMESTAMP, INTERVAL), doubles (NaN first, as in
// types.Compare) and strings. The input is append-only, so only the extreme
// is kept. Decimals have their own decMinMax.
type minMax[V cmp.Ordered] struct {
	max   bool
	load  loader[V]
	datum func(V) types.Datum
	acc   aggstate.Column[extreme[V]]
	extra int64 // bytes of the strings kept
	buf   []V
	valid []bool
}

// newMinMax returns MIN or MAX over arguments of physical type p.
func newMinMax(p types.Physical, max bool) (accumulator, error) {
	switch p {
	case types.PhysBool, types.PhysInt64, types.PhysDate32, types.PhysTimestamp, types.PhysDuration:
		return &minMax[int64]{max: max, load: loadInts, datum: types.IntDatum}, nil
	case types.PhysFloat64:
		return &minMax[float64]{max: max, load: loadFloats, datum: types.FloatDatum}, nil
	case types.PhysString:
		return &minMax[string]{max: max, load: loadStrings, datum: types.StringDatum}, nil
	case types.PhysDecimal:
		return &decMinMax{max: max}, nil
	}
	return nil, fmt.Errorf("MIN/MAX over this type: %w", accum.ErrNotSupported)
}

func (a *minMax[V]) grow(n int)   { a.acc.Grow(n) }
func (a *minMax[V]) bytes() int64 { return a.acc.Bytes() + a.extra }

func (a *minMax[V]) free(s int32) {
	x := a.acc.At(s)
	if x.ok {
		a.extra -= keptBytes(x.v)
	}
	*x = extreme[V]{}
}

// set makes v (borrowed from a batch) the extreme of x.
func (a *minMax[V]) set(x *extreme[V], v V) {
	if x.ok {
		a.extra -= keptBytes(x.v)
	}
	x.v, x.ok = keep(v), true
	a.extra += keptBytes(x.v)
}

func (a *minMax[V]) add(slots []int32, arg arrow.Array) error {
	vals, buf, err := a.load(arg, a.buf)
	a.buf = buf
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s < 0 || (valid != nil && !valid[i]) {
			continue
		}
		x, v := a.acc.At(s), vals[i]
		if !x.ok || (a.max && cmp.Less(x.v, v)) || (!a.max && cmp.Less(v, x.v)) {
			a.set(x, v)
		}
	}
	clear(a.buf) // strings point into the batch
	return nil
}

func (a *minMax[V]) merge(d, s int32) error {
	x, y := a.acc.At(d), a.acc.At(s)
	if y.ok && (!x.ok || (a.max && cmp.Less(x.v, y.v)) || (!a.max && cmp.Less(y.v, x.v))) {
		a.set(x, y.v)
	}
	return nil
}

func (a *minMax[V]) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		if x := a.acc.At(s); x.ok {
			dst[j] = a.datum(x.v)
		} else {
			dst[j] = types.NullDatum
		}
	}
	return nil
}

// decMinMax is MIN or MAX over decimals.
type decMinMax struct {
	max   bool
	acc   aggstate.Column[extreme[decimal128.Num]]
	valid []bool
}

func (a *decMinMax) grow(n int)   { a.acc.Grow(n) }
func (a *decMinMax) free(s int32) { *a.acc.At(s) = extreme[decimal128.Num]{} }
func (a *decMinMax) bytes() int64 { return a.acc.Bytes() }

// better reports whether v replaces the extreme x.
func (a *decMinMax) better(x *extreme[decimal128.Num], v decimal128.Num) bool {
	if !x.ok {
		return true
	}
	c := v.Cmp(x.v)
	return (a.max && c > 0) || (!a.max && c < 0)
}

func (a *decMinMax) add(slots []int32, arg arrow.Array) error {
	vals, _, err := loadDecimals(arg, nil)
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s < 0 || (valid != nil && !valid[i]) {
			continue
		}
		if x := a.acc.At(s); a.better(x, vals[i]) {
			x.v, x.ok = vals[i], true
		}
	}
	return nil
}

func (a *decMinMax) merge(d, s int32) error {
	x, y := a.acc.At(d), a.acc.At(s)
	if y.ok && a.better(x, y.v) {
		*x = *y
	}
	return nil
}

func (a *decMinMax) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		if x := a.acc.At(s); x.ok {
			dst[j] = types.DecimalDatum(x.v)
		} else {
			dst[j] = types.NullDatum
		}
	}
	return nil
}
