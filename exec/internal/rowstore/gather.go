package rowstore

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gather builds the column's values at ids, one builder type at a time,
// each a typed loop; id -1 gives NULL.
func (c *Col) gather(alloc memory.Allocator, ids []int32) arrow.Array {
	bld := array.NewBuilder(alloc, c.dt)
	defer bld.Release()
	bld.Reserve(len(ids))
	switch b := bld.(type) {
	case *array.Int64Builder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.i64.At(id))
			}
		}
	case *array.TimestampBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Timestamp(c.i64.At(id)))
			}
		}
	case *array.DurationBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Duration(c.i64.At(id)))
			}
		}
	case *array.Date32Builder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Date32(c.i32.At(id)))
			}
		}
	case *array.Float64Builder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.f64.At(id))
			}
		}
	case *array.Decimal128Builder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.dec.At(id))
			}
		}
	case *array.BooleanBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.b.At(id))
			}
		}
	case *array.StringBuilder:
		// The values' bytes at once: appended one by one, the builder
		// would grow its data buffer by doubling, a fresh copy each time.
		size := 0
		for _, id := range ids {
			if id >= 0 && c.valid.At(id) {
				size += int(c.slen.At(id))
			}
		}
		b.ReserveData(size)
		for _, id := range ids {
			if id < 0 || !c.valid.At(id) {
				b.AppendNull()
			} else {
				b.BinaryBuilder.Append(c.arena.At(c.soff.At(id), c.slen.At(id)))
			}
		}
	case *array.NullBuilder:
		b.AppendNulls(len(ids))
	default:
		panic(fmt.Sprintf("exec: row store cannot build %s", c.dt))
	}
	return bld.NewArray()
}
