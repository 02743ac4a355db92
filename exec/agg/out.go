package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec/internal/vec"
)

// outRow is one output row: the touched group j, from its old or new values.
type outRow struct {
	j   int32
	old bool
}

// outBuf gathers an output column's values before appending them to its
// builder in one call: a typed copy and, when every value is valid, no
// per-row validity bit, where appending row by row set a bit and checked
// the capacity for each value. Its slices are scratch reused across
// batches; only the one of the column's type is used.
type outBuf struct {
	valid []bool
	i     []int64
	f     []float64
	d     []decimal128.Num
	b     []bool
	d32   []arrow.Date32
	ts    []arrow.Timestamp
	dur   []arrow.Duration
}

// pick returns the vec a row's values come from.
func pick(r outRow, old, new *vector) *vector {
	if r.old {
		return old
	}
	return new
}

// gather sets dst[k] and o.valid[k] to the value and validity of row k
// (from oldVals or newVals, of old or new) and returns the validity to
// append: nil when every value is valid. dst must be as long as rows.
func gather[T any](o *outBuf, dst []T, rows []outRow, old, new *vector, oldVals, newVals []T) []bool {
	o.valid = vec.Resize(o.valid, len(rows))
	valid := o.valid[:len(dst)]
	nulls := 0
	for k, r := range rows {
		vals, ok := newVals, new.valid
		if r.old {
			vals, ok = oldVals, old.valid
		}
		dst[k], valid[k] = vals[r.j], ok[r.j]
		nulls += 1 - b2i(valid[k])
	}
	if nulls == 0 {
		return nil
	}
	return valid
}

// gatherInts gathers an integer-like column into o.i.
func (o *outBuf) gatherInts(rows []outRow, old, new *vector) []bool {
	o.i = vec.Resize(o.i, len(rows))
	return gather(o, o.i, rows, old, new, old.i, new.i)
}

// fixedColumn builds an output column of 8-byte values (BIGINT,
// TIMESTAMP, INTERVAL, DOUBLE: most aggregate results) straight into a
// buffer from alloc, with a validity bitmap only if some value is NULL; it
// returns nil for other types, which go through a builder. A builder would
// copy the gathered values and allocate a bitmap in every batch.
func (o *outBuf) fixedColumn(alloc memory.Allocator, dt arrow.DataType, old, new *vector, rows []outRow) arrow.Array {
	n := len(rows)
	var buf *memory.Buffer
	var valid []bool
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		buf = memory.NewResizableBuffer(alloc)
		buf.Resize(8 * n)
		valid = gather(o, arrow.GetData[int64](buf.Bytes())[:n], rows, old, new, old.i, new.i)
	case arrow.FLOAT64:
		buf = memory.NewResizableBuffer(alloc)
		buf.Resize(8 * n)
		valid = gather(o, arrow.GetData[float64](buf.Bytes())[:n], rows, old, new, old.f, new.f)
	default:
		return nil
	}
	var nullBuf *memory.Buffer
	nulls := 0
	if valid != nil {
		nullBuf = memory.NewResizableBuffer(alloc)
		nullBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := nullBuf.Bytes()
		clear(bits)
		for k, ok := range valid {
			if ok {
				bitutil.SetBit(bits, k)
			} else {
				nulls++
			}
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{nullBuf, buf}, nil, nulls, 0)
	arr := array.MakeFromData(data)
	data.Release()
	buf.Release()
	if nullBuf != nil {
		nullBuf.Release()
	}
	return arr
}

// appendRows appends one value per row to b, taken from old or new as the
// row says. Key columns pass the same vec twice.
func appendRows(o *outBuf, b array.Builder, old, new *vector, rows []outRow) error {
	n := len(rows)
	switch b := b.(type) {
	case *array.Int64Builder:
		b.AppendValues(o.i, o.gatherInts(rows, old, new))
	case *array.Float64Builder:
		o.f = vec.Resize(o.f, n)
		b.AppendValues(o.f, gather(o, o.f, rows, old, new, old.f, new.f))
	case *array.Decimal128Builder:
		o.d = vec.Resize(o.d, n)
		b.AppendValues(o.d, gather(o, o.d, rows, old, new, old.d, new.d))
	case *array.BooleanBuilder:
		valid := o.gatherInts(rows, old, new)
		o.b = vec.Resize(o.b, n)
		for k, v := range o.i {
			o.b[k] = v != 0
		}
		b.AppendValues(o.b, valid)
	case *array.Date32Builder:
		valid := o.gatherInts(rows, old, new)
		o.d32 = vec.Resize(o.d32, n)
		for k, v := range o.i {
			o.d32[k] = arrow.Date32(v)
		}
		b.AppendValues(o.d32, valid)
	case *array.TimestampBuilder:
		valid := o.gatherInts(rows, old, new)
		o.ts = vec.Resize(o.ts, n)
		for k, v := range o.i {
			o.ts[k] = arrow.Timestamp(v)
		}
		b.AppendValues(o.ts, valid)
	case *array.DurationBuilder:
		valid := o.gatherInts(rows, old, new)
		o.dur = vec.Resize(o.dur, n)
		for k, v := range o.i {
			o.dur[k] = arrow.Duration(v)
		}
		b.AppendValues(o.dur, valid)
	case *array.StringBuilder:
		b.Reserve(n)
		size := 0
		for _, r := range rows {
			if v := pick(r, old, new); v.valid[r.j] {
				size += len(v.s[r.j])
			}
		}
		b.ReserveData(size)
		for _, r := range rows {
			if v := pick(r, old, new); v.valid[r.j] {
				b.Append(v.s[r.j])
			} else {
				b.AppendNull()
			}
		}
	default:
		return fmt.Errorf("hash aggregate: no output builder for %T", b)
	}
	return nil
}
