package sessionwin

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

// accumulator is one aggregate's accumulators for every open session, indexed
// by the session's slot. Accumulators are mergeable (a commutative monoid):
// the result of a session is the same whatever the order its rows were added
// in and whichever sessions were merged to make it, which is what lets Agg
// add a chunk's rows after it has settled which session each row ends up
// in. The interface is called once per chunk (add), merge
// or emission, never per row.
type accumulator interface {
	// grow makes room for slots 0..n-1.
	grow(n int)
	// add folds the argument column of a chunk into the sessions: row i goes
	// to slot slots[i], and rows whose slot is negative are skipped. arg is
	// nil for COUNT(*).
	add(slots []int32, arg arrow.Array) error
	// merge folds the accumulators of slot src into those of slot dst; src
	// is freed afterwards.
	merge(dst, src int32) error
	// result writes the value of each slot of slots to dst.
	result(slots []int32, dst []types.Datum) error
	// free empties slot s for reuse.
	free(s int32)
	// bytes estimates the memory held.
	bytes() int64
}

// newAccumulator returns the accumulators of aggregate a over an input of
// nInput columns, checking its argument and result types.
func newAccumulator(a accum.Spec, nInput int) (accumulator, error) {
	name := "aggregate"
	if a.Func >= plan.AggCountStar && a.Func <= plan.AggApproxCountDistinct {
		name = a.Func.String()
	}
	switch a.Func {
	case plan.AggCountStar:
		if a.Type.Physical() != types.PhysInt64 {
			return nil, fmt.Errorf("COUNT(*) must return BIGINT, not %s", a.Type)
		}
		return &countAcc{star: true}, nil
	case plan.AggCount, plan.AggSum, plan.AggAvg, plan.AggMin, plan.AggMax:
	default:
		return nil, fmt.Errorf("%s in a SESSION window: %w", name, accum.ErrNotSupported)
	}
	if a.Arg < 0 || a.Arg >= nInput {
		return nil, fmt.Errorf("%s argument ordinal %d out of range", name, a.Arg)
	}
	if a.Func == plan.AggCount && a.ArgType.Kind == types.Null {
		return &countAcc{}, nil // COUNT(NULL): every value is NULL, so 0
	}
	if want := plan.AggResultType(a.Func, a.ArgType); a.Type.Physical() != want.Physical() ||
		(want.Physical() == types.PhysDecimal && a.Type.Scale != want.Scale) {
		return nil, fmt.Errorf("%s over %s cannot return %s", name, a.ArgType, a.Type)
	}
	p := a.ArgType.Physical()
	distinct := a.Distinct && a.Func != plan.AggMin && a.Func != plan.AggMax
	switch a.Func {
	case plan.AggMin, plan.AggMax:
		return newMinMax(p, a.Func == plan.AggMax)
	case plan.AggCount:
		if !distinct {
			return &countAcc{}, nil
		}
		c := &countAcc{}
		switch p {
		case types.PhysFloat64:
			return newDistinct(c, loadFloatKeys, func(s int32, _ uint64) error { c.one(s); return nil }), nil
		case types.PhysDecimal:
			return newDistinct(c, loadDecimals, func(s int32, _ decimal128.Num) error { c.one(s); return nil }), nil
		case types.PhysString:
			return newDistinct(c, loadStrings, func(s int32, _ string) error { c.one(s); return nil }), nil
		default:
			return newDistinct(c, loadInts, func(s int32, _ int64) error { c.one(s); return nil }), nil
		}
	case plan.AggSum, plan.AggAvg:
		avg := a.Func == plan.AggAvg
		switch p {
		case types.PhysInt64:
			st := &intSum{avg: avg}
			if distinct {
				return newDistinct(st, loadInts, func(s int32, v int64) error { st.one(s, v); return nil }), nil
			}
			return st, nil
		case types.PhysFloat64:
			st := &floatSum{avg: avg}
			if distinct {
				return newDistinct(st, loadFloatKeys, func(s int32, k uint64) error {
					st.one(s, math.Float64frombits(k))
					return nil
				}), nil
			}
			return st, nil
		case types.PhysDecimal:
			st := &decSum{avg: avg, scale: int32(a.ArgType.Scale)}
			if distinct {
				return newDistinct(st, loadDecimals, st.one), nil
			}
			return st, nil
		}
	}
	return nil, fmt.Errorf("%s over %s: %w", name, a.ArgType, accum.ErrNotSupported)
}

// countAcc is COUNT(*) (every row) or COUNT(x) (non-NULL values).
type countAcc struct {
	star  bool
	n     aggstate.Column[int64]
	valid []bool
}

func (c *countAcc) grow(n int)   { c.n.Grow(n) }
func (c *countAcc) one(s int32)  { *c.n.At(s)++ }
func (c *countAcc) free(s int32) { *c.n.At(s) = 0 }
func (c *countAcc) bytes() int64 { return c.n.Bytes() }
func (c *countAcc) merge(d, s int32) error {
	*c.n.At(d) += *c.n.At(s)
	return nil
}

func (c *countAcc) add(slots []int32, arg arrow.Array) error {
	var valid []bool
	if !c.star {
		valid = validity(arg, c.valid)
		c.valid = valid
	}
	for i, s := range slots {
		if s >= 0 && (valid == nil || valid[i]) {
			*c.n.At(s)++
		}
	}
	return nil
}

func (c *countAcc) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		dst[j] = types.IntDatum(*c.n.At(s))
	}
	return nil
}

// int128 is an exact sum of int64s in 128 bits (two's complement), with
// the number of values summed. SUM fails only when the final value does not
// fit BIGINT, not when a partial sum does.
type int128 struct {
	lo uint64
	hi int64
	n  int64
}

func (x *int128) add(lo uint64, hi int64) {
	sum := x.lo + lo
	carry := int64(0)
	if sum < x.lo {
		carry = 1
	}
	x.lo, x.hi = sum, x.hi+hi+carry
}

// float returns the sum as a double.
func (x *int128) float() float64 {
	if x.hi == int64(x.lo)>>63 { // fits in 64 bits
		return float64(int64(x.lo))
	}
	return float64(x.hi)*(1<<64) + float64(x.lo)
}

// intSum is SUM (BIGINT) or AVG (DOUBLE) over integers.
type intSum struct {
	avg   bool
	acc   aggstate.Column[int128]
	ibuf  []int64
	valid []bool
}

func (a *intSum) grow(n int)   { a.acc.Grow(n) }
func (a *intSum) free(s int32) { *a.acc.At(s) = int128{} }
func (a *intSum) bytes() int64 { return a.acc.Bytes() }

func (a *intSum) one(s int32, v int64) {
	x := a.acc.At(s)
	x.add(uint64(v), v>>63)
	x.n++
}

func (a *intSum) add(slots []int32, arg arrow.Array) error {
	vals, buf, err := loadInts(arg, a.ibuf)
	a.ibuf = buf
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s >= 0 && (valid == nil || valid[i]) {
			a.one(s, vals[i])
		}
	}
	return nil
}

func (a *intSum) merge(d, s int32) error {
	x, y := a.acc.At(d), a.acc.At(s)
	x.add(y.lo, y.hi)
	x.n += y.n
	return nil
}

func (a *intSum) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		x := a.acc.At(s)
		switch {
		case x.n == 0:
			dst[j] = types.NullDatum
		case a.avg:
			dst[j] = types.FloatDatum(x.float() / float64(x.n))
		case x.hi != int64(x.lo)>>63:
			return fmt.Errorf("BIGINT value is out of range in SUM: %w", accum.ErrOverflow)
		default:
			dst[j] = types.IntDatum(int64(x.lo))
		}
	}
	return nil
}

// floatSum is SUM or AVG over doubles.
type floatSum struct {
	avg   bool
	acc   aggstate.Column[floatAcc]
	valid []bool
}

// floatAcc is a session's sum of doubles and the number of values.
type floatAcc struct {
	sum float64
	n   int64
}

func (a *floatSum) grow(n int) { a.acc.Grow(n) }
func (a *floatSum) free(s int32) {
	x := a.acc.At(s)
	x.sum, x.n = 0, 0
}
func (a *floatSum) bytes() int64 { return a.acc.Bytes() }

func (a *floatSum) one(s int32, v float64) {
	x := a.acc.At(s)
	x.sum += v
	x.n++
}

func (a *floatSum) add(slots []int32, arg arrow.Array) error {
	vals, _, err := loadFloats(arg, nil)
	if err != nil {
		return err
	}
	valid := validity(arg, a.valid)
	a.valid = valid
	for i, s := range slots {
		if s >= 0 && (valid == nil || valid[i]) {
			a.one(s, vals[i])
		}
	}
	return nil
}

func (a *floatSum) merge(d, s int32) error {
	x, y := a.acc.At(d), a.acc.At(s)
	x.sum += y.sum
	x.n += y.n
	return nil
}

func (a *floatSum) result(slots []int32, dst []types.Datum) error {
	for j, s := range slots {
		x := a.acc.At(s)
		switch {
		case x.n == 0:
			dst[j] = types.NullDatum
		case a.avg:
			dst[j] = types.FloatDatum(x.sum / float64(x.n))
		default:
			dst[j] = types.FloatDatum(x.sum)
		}
	}
	return nil
}
