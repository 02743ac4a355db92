package file

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/internal/jsonpath"
)

// batch builds one chunk's columns with typed Arrow builders. Builders are
// reserved for a whole batch when its first row arrives, so appending a
// fixed-width value is a store and a bit set.
type batch struct {
	schema *arrow.Schema
	cols   []colBuilder
	size   int // the most rows a batch holds
	rows   int
}

// colBuilder is one column's builder, held both as an array.Builder and as
// its concrete type (only the field of the column's kind is set).
type colBuilder struct {
	b        array.Builder
	kind     kind
	bl       *array.BooleanBuilder
	i64      *array.Int64Builder
	f64      *array.Float64Builder
	dec      *array.Decimal128Builder
	str      *array.BinaryBuilder
	d32      *array.Date32Builder
	ts       *array.TimestampBuilder
	dataHint int    // string bytes in the last batch, to reserve the next one
	norm     []byte // kindJSON: a document normalized
}

// maxDataHint caps the string bytes reserved ahead for a batch: beyond it the
// builder's own doubling costs little, and a few huge values must not make
// every later batch reserve gigabytes.
const maxDataHint = 4 << 20

// newBatch returns a batch of at most size rows of cols, allocating from
// alloc.
func newBatch(alloc memory.Allocator, cols []column, size int) *batch {
	fields := make([]arrow.Field, len(cols))
	b := &batch{cols: make([]colBuilder, len(cols)), size: size}
	for j, c := range cols {
		fields[j] = types.Field(c.name, c.t, c.nullable)
		cb := colBuilder{b: array.NewBuilder(alloc, c.t.Arrow()), kind: c.kind}
		switch bb := cb.b.(type) {
		case *array.BooleanBuilder:
			cb.bl = bb
		case *array.Int64Builder:
			cb.i64 = bb
		case *array.Float64Builder:
			cb.f64 = bb
		case *array.Decimal128Builder:
			cb.dec = bb
		case *array.StringBuilder:
			cb.str = bb.BinaryBuilder
		case *array.Date32Builder:
			cb.d32 = bb
		case *array.TimestampBuilder:
			cb.ts = bb
		}
		b.cols[j] = cb
	}
	b.schema = arrow.NewSchema(fields, nil)
	return b
}

// full reports whether the batch holds its most rows.
func (b *batch) full() bool { return b.rows >= b.size }

// appendRow appends a good row.
func (b *batch) appendRow(cells []cell) {
	if b.rows == 0 {
		b.reserve()
	}
	for j := range b.cols {
		cb, c := &b.cols[j], &cells[j]
		if c.null {
			cb.b.AppendNull()
			continue
		}
		switch cb.kind {
		case kindInt:
			cb.i64.UnsafeAppend(c.i)
		case kindString:
			cb.str.Append(c.s)
		case kindJSON:
			// The parsers checked the document: it normalizes.
			cb.norm, _ = jsonpath.Normalize(cb.norm[:0], c.s)
			cb.str.Append(cb.norm)
		case kindTimestamp:
			cb.ts.UnsafeAppend(arrow.Timestamp(c.i))
		case kindFloat:
			cb.f64.UnsafeAppend(c.f)
		case kindDecimal:
			cb.dec.UnsafeAppend(c.d)
		case kindBool:
			cb.bl.UnsafeAppend(c.i != 0)
		case kindDate:
			cb.d32.UnsafeAppend(arrow.Date32(c.i))
		}
	}
	b.rows++
}

// reserve makes room for a whole batch in every builder.
func (b *batch) reserve() {
	for j := range b.cols {
		cb := &b.cols[j]
		cb.b.Reserve(b.size)
		if cb.str != nil && cb.dataHint > 0 {
			cb.str.ReserveData(cb.dataHint)
		}
	}
}

// finish returns the rows appended so far as a record batch (nil when there
// are none) and starts a new batch.
func (b *batch) finish() arrow.RecordBatch {
	if b.rows == 0 {
		return nil
	}
	arrs := make([]arrow.Array, len(b.cols))
	for j := range b.cols {
		cb := &b.cols[j]
		if cb.str != nil {
			// Scale the hint to a full batch, so a short batch (a followed
			// file) does not shrink the next reservation, with an eighth to
			// spare: a batch of slightly longer strings than the last must
			// not outgrow it, which doubles the buffer and copies it.
			full := cb.str.DataLen() * b.size / b.rows
			cb.dataHint = min(full+full/8, maxDataHint)
		}
		arrs[j] = cb.b.NewArray()
	}
	rec := array.NewRecordBatch(b.schema, arrs, int64(b.rows))
	for _, a := range arrs {
		a.Release()
	}
	b.rows = 0
	return rec
}

// release frees the builders.
func (b *batch) release() {
	for j := range b.cols {
		b.cols[j].b.Release()
	}
	b.cols = nil
}
