package agg

import (
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// numAcc computes the SUM, MIN or MAX of a numeric or temporal column per
// group: in int64 (integers, timestamps, intervals, dates), float64 or
// decimal128 according to the partial's type. A group without a non-NULL
// value gets NULL.
type numAcc struct {
	kind  PartialKind
	arg   int
	t     types.T
	i64   []int64
	f64   []float64
	dec   []decimal128.Num
	valid []bool
	ovf   bool // an integer sum overflowed
	buf   []int64
}

func (a *numAcc) run(env *exec.Env, cols []arrow.Array, group []int32, groups int) (arrow.Array, error) {
	col := cols[a.arg]
	a.ovf = false
	a.valid = vec.Resize(a.valid, groups)
	clear(a.valid)
	switch a.t.Physical() {
	case types.PhysFloat64:
		a.f64 = vec.Resize(a.f64, groups)
		vals := floatValues(col)
		for i, g := range group {
			if col.IsNull(i) {
				continue
			}
			v := vals(i)
			switch {
			case !a.valid[g]:
				a.f64[g], a.valid[g] = v, true
			case a.kind == PartialSum:
				a.f64[g] += v
			case a.kind == PartialMin && v < a.f64[g], a.kind == PartialMax && v > a.f64[g]:
				a.f64[g] = v
			}
		}
	case types.PhysDecimal:
		a.dec = vec.Resize(a.dec, groups)
		d := col.(*array.Decimal128)
		for i, g := range group {
			if col.IsNull(i) {
				continue
			}
			v := d.Value(i)
			switch {
			case !a.valid[g]:
				a.dec[g], a.valid[g] = v, true
			case a.kind == PartialSum:
				a.dec[g] = a.dec[g].Add(v)
			case a.kind == PartialMin && v.Less(a.dec[g]), a.kind == PartialMax && a.dec[g].Less(v):
				a.dec[g] = v
			}
		}
	default:
		a.i64 = vec.Resize(a.i64, groups)
		vals, buf, err := intValues(col, a.buf)
		if err != nil {
			return nil, err
		}
		a.buf = buf
		if col.NullN() == 0 && a.kind == PartialSum {
			// The common case, without a branch per row.
			clear(a.i64)
			var ovf int64
			for i, g := range group {
				v := vals[i]
				s := a.i64[g] + v
				ovf |= (a.i64[g] ^ s) & (v ^ s)
				a.i64[g] = s
				a.valid[g] = true
			}
			a.ovf = ovf < 0
			break
		}
		for i, g := range group {
			if col.IsNull(i) {
				continue
			}
			v := vals[i]
			switch {
			case !a.valid[g]:
				a.i64[g], a.valid[g] = v, true
			case a.kind == PartialSum:
				s := a.i64[g] + v
				a.ovf = a.ovf || (a.i64[g]^s)&(v^s) < 0
				a.i64[g] = s
			case a.kind == PartialMin && v < a.i64[g], a.kind == PartialMax && v > a.i64[g]:
				a.i64[g] = v
			}
		}
	}
	if a.ovf {
		return nil, errors.New("SUM overflows BIGINT")
	}
	return a.build(env, groups), nil
}

func (a *numAcc) build(env *exec.Env, groups int) arrow.Array {
	b := array.NewBuilder(env.Alloc, a.t.Arrow())
	defer b.Release()
	b.Reserve(groups)
	for g := 0; g < groups; g++ {
		if !a.valid[g] {
			b.AppendNull()
			continue
		}
		switch x := b.(type) {
		case *array.Int64Builder:
			x.UnsafeAppend(a.i64[g])
		case *array.TimestampBuilder:
			x.UnsafeAppend(arrow.Timestamp(a.i64[g]))
		case *array.DurationBuilder:
			x.UnsafeAppend(arrow.Duration(a.i64[g]))
		case *array.Date32Builder:
			x.UnsafeAppend(arrow.Date32(a.i64[g]))
		case *array.Float64Builder:
			x.UnsafeAppend(a.f64[g])
		case *array.Decimal128Builder:
			x.UnsafeAppend(a.dec[g])
		}
	}
	return b.NewArray()
}

// floatValues reads a DOUBLE column, or an integer one summed as DOUBLE.
func floatValues(col arrow.Array) func(int) float64 {
	switch c := col.(type) {
	case *array.Float64:
		return func(i int) float64 { return c.Value(i) }
	case *array.Int64:
		return func(i int) float64 { return float64(c.Value(i)) }
	}
	return func(int) float64 { return 0 }
}

// strAcc computes the MIN or MAX of a VARCHAR column per group.
type strAcc struct {
	max   bool
	arg   int
	best  []string
	valid []bool
}

func (a *strAcc) run(env *exec.Env, cols []arrow.Array, group []int32, groups int) (arrow.Array, error) {
	col := cols[a.arg].(*array.String)
	a.best = vec.Resize(a.best, groups)
	a.valid = vec.Resize(a.valid, groups)
	clear(a.valid)
	for i, g := range group {
		if col.IsNull(i) {
			continue
		}
		v := col.Value(i)
		if !a.valid[g] || (a.max && strings.Compare(v, a.best[g]) > 0) || (!a.max && strings.Compare(v, a.best[g]) < 0) {
			a.best[g], a.valid[g] = v, true
		}
	}
	b := array.NewStringBuilder(env.Alloc)
	defer b.Release()
	for g := 0; g < groups; g++ {
		if a.valid[g] {
			b.Append(a.best[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray(), nil
}
