package types

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DatumAt returns row i of arr, an array of type t (as made by T.Arrow).
// A string is copied, so that the datum outlives arr: one kept in state,
// a result or a test's rows must not pin, or read after its release, a
// buffer that may be reused. It is meant for results, state kept row by
// row and tests, not for hot loops.
func DatumAt(arr arrow.Array, i int, t T) Datum {
	if arr.IsNull(i) {
		return NullDatum
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return BoolDatum(a.Value(i))
	case *array.Int64:
		return IntDatum(a.Value(i))
	case *array.Float64:
		return FloatDatum(a.Value(i))
	case *array.Decimal128:
		return DecimalDatum(a.Value(i))
	case *array.String:
		return StringDatum(strings.Clone(a.Value(i)))
	case *array.Date32:
		return IntDatum(int64(a.Value(i)))
	case *array.Timestamp:
		return IntDatum(int64(a.Value(i)))
	case *array.Duration:
		return IntDatum(int64(a.Value(i)))
	case *array.Null:
		return NullDatum
	}
	panic(fmt.Sprintf("types: DatumAt: unexpected array %T for %s", arr, t))
}

// NewBuilder returns an Arrow builder for values of type t.
func NewBuilder(alloc memory.Allocator, t T) array.Builder {
	return array.NewBuilder(alloc, t.Arrow())
}

// AppendDatum appends d to b, a builder made by NewBuilder for type t.
func AppendDatum(b array.Builder, d Datum, t T) {
	if d.Null {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(d.Bool())
	case *array.Int64Builder:
		b.Append(d.I)
	case *array.Float64Builder:
		b.Append(d.F)
	case *array.Decimal128Builder:
		b.Append(d.D)
	case *array.StringBuilder:
		b.Append(d.S)
	case *array.Date32Builder:
		b.Append(arrow.Date32(d.I))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(d.I))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(d.I))
	case *array.NullBuilder:
		b.AppendNull()
	default:
		panic(fmt.Sprintf("types: AppendDatum: unexpected builder %T for %s", b, t))
	}
}

// BuildArray returns an array of type t holding ds.
func BuildArray(alloc memory.Allocator, t T, ds []Datum) arrow.Array {
	b := NewBuilder(alloc, t)
	defer b.Release()
	b.Reserve(len(ds))
	for _, d := range ds {
		AppendDatum(b, d, t)
	}
	return b.NewArray()
}

// BuildRecord returns a record batch with one column per type, holding rows
// (row-major). The schema's fields are named by names.
func BuildRecord(alloc memory.Allocator, names []string, ts []T, rows [][]Datum) arrow.RecordBatch {
	fields := make([]arrow.Field, len(ts))
	cols := make([]arrow.Array, len(ts))
	col := make([]Datum, len(rows))
	for j, t := range ts {
		fields[j] = Field(names[j], t, true)
		for i, r := range rows {
			col[i] = r[j]
		}
		cols[j] = BuildArray(alloc, t, col)
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// Rows converts a record batch whose columns have types ts into rows.
func Rows(rec arrow.RecordBatch, ts []T) [][]Datum {
	n := int(rec.NumRows())
	out := make([][]Datum, n)
	for i := range out {
		row := make([]Datum, len(ts))
		for j, t := range ts {
			row[j] = DatumAt(rec.Column(j), i, t)
		}
		out[i] = row
	}
	return out
}
