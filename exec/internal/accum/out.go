package accum

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec/internal/vec"
)

// OutRow is one output row: the value at index J of its column's old or
// new Vector.
type OutRow struct {
	J   int32
	Old bool
}

// Out builds the output columns of aggregates from Vectors of values
// (results and group keys). It gathers a column's values before appending
// them to its builder in one call: a typed copy and, when every value is
// valid, no per-row validity bit, where appending row by row set a bit and
// checked the capacity for each value. Its slices are scratch reused
// across batches; only the one of the column's type is used.
type Out struct {
	ident []OutRow // 0, 1, 2, ...: Values' rows
	valid []bool
	i     []int64
	d     []decimal128.Num
	b     []bool
	d32   []arrow.Date32
}

// Column returns the column of rows, of b's type, taking each value from
// old or new as its row says (a key column passes the same Vector twice).
// An 8-byte type is built straight into a buffer from alloc; the others go
// through b, which is left empty.
func (o *Out) Column(alloc memory.Allocator, b array.Builder, old, new *Vector, rows []OutRow) (arrow.Array, error) {
	if col := o.fixedColumn(alloc, b.Type(), old, new, rows); col != nil {
		return col, nil
	}
	err := appendRows(o, b, old, new, rows)
	col := b.NewArray()
	if err != nil {
		col.Release()
		return nil, err
	}
	return col, nil
}

// pick returns the Vector a row's values come from.
func pick(r OutRow, old, new *Vector) *Vector {
	if r.Old {
		return old
	}
	return new
}

// gather sets dst[k] and o.valid[k] to the value and validity of row k
// (from oldVals or newVals, of old or new) and returns the validity to
// append: nil when every value is valid. dst must be as long as rows.
func gather[T any](o *Out, dst []T, rows []OutRow, old, new *Vector, oldVals, newVals []T) []bool {
	o.valid = vec.Resize(o.valid, len(rows))
	valid := o.valid[:len(dst)]
	nulls := 0
	for k, r := range rows {
		vals, ok := newVals, new.Valid
		if r.Old {
			vals, ok = oldVals, old.Valid
		}
		dst[k], valid[k] = vals[r.J], ok[r.J]
		nulls += 1 - b2i(valid[k])
	}
	if nulls == 0 {
		return nil
	}
	return valid
}

// gatherInts gathers an integer-like column into o.i.
func (o *Out) gatherInts(rows []OutRow, old, new *Vector) []bool {
	o.i = vec.Resize(o.i, len(rows))
	return gather(o, o.i, rows, old, new, old.I, new.I)
}

// fixedColumn builds an output column of 8-byte values (BIGINT,
// TIMESTAMP, INTERVAL, DOUBLE: most aggregate results) straight into a
// buffer from alloc, with a validity bitmap only if some value is NULL; it
// returns nil for other types, which go through a builder. A builder would
// copy the gathered values and allocate a bitmap in every batch.
func (o *Out) fixedColumn(alloc memory.Allocator, dt arrow.DataType, old, new *Vector, rows []OutRow) arrow.Array {
	n := len(rows)
	var buf *memory.Buffer
	var valid []bool
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		buf = newBuffer(alloc, 8*n)
		valid = gather(o, arrow.GetData[int64](buf.Bytes())[:n], rows, old, new, old.I, new.I)
	case arrow.FLOAT64:
		buf = newBuffer(alloc, 8*n)
		valid = gather(o, arrow.GetData[float64](buf.Bytes())[:n], rows, old, new, old.F, new.F)
	default:
		return nil
	}
	return fixedArray(alloc, dt, buf, n, valid)
}

// Values returns the column of the first n values of v, of b's type, in
// order: Column's rows 0..n-1 of v, the 8-byte types copied in one move.
func (o *Out) Values(alloc memory.Allocator, b array.Builder, v *Vector, n int) (arrow.Array, error) {
	dt := b.Type()
	var buf *memory.Buffer
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.DURATION:
		buf = newBuffer(alloc, 8*n)
		copy(arrow.GetData[int64](buf.Bytes()), v.I[:n])
	case arrow.FLOAT64:
		buf = newBuffer(alloc, 8*n)
		copy(arrow.GetData[float64](buf.Bytes()), v.F[:n])
	default:
		for len(o.ident) < n {
			o.ident = append(o.ident, OutRow{J: int32(len(o.ident))})
		}
		return o.Column(alloc, b, v, v, o.ident[:n])
	}
	valid := v.Valid[:n]
	if !slices.Contains(valid, false) {
		valid = nil
	}
	return fixedArray(alloc, dt, buf, n, valid), nil
}

// newBuffer returns a buffer of size bytes from alloc.
func newBuffer(alloc memory.Allocator, size int) *memory.Buffer {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(size)
	return buf
}

// fixedArray returns the array of type dt of the n 8-byte values in buf,
// which it takes, with a validity bitmap from valid unless valid is nil
// (every value valid).
func fixedArray(alloc memory.Allocator, dt arrow.DataType, buf *memory.Buffer, n int, valid []bool) arrow.Array {
	var nullBuf *memory.Buffer
	nulls := 0
	if valid != nil {
		nullBuf = newBuffer(alloc, int(bitutil.BytesForBits(int64(n))))
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
// row says: the types fixedColumn does not build (decimals, booleans,
// dates, strings).
func appendRows(o *Out, b array.Builder, old, new *Vector, rows []OutRow) error {
	n := len(rows)
	switch b := b.(type) {
	case *array.Decimal128Builder:
		o.d = vec.Resize(o.d, n)
		b.AppendValues(o.d, gather(o, o.d, rows, old, new, old.D, new.D))
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
	case *array.StringBuilder:
		b.Reserve(n)
		size := 0
		for _, r := range rows {
			if v := pick(r, old, new); v.Valid[r.J] {
				size += len(v.S[r.J])
			}
		}
		b.ReserveData(size)
		for _, r := range rows {
			if v := pick(r, old, new); v.Valid[r.J] {
				b.Append(v.S[r.J])
			} else {
				b.AppendNull()
			}
		}
	default:
		return fmt.Errorf("no aggregate output builder for %T", b)
	}
	return nil
}
