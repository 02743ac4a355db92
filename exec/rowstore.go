package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// rowStore keeps rows of a fixed schema column by column, in typed slices,
// addressed by dense row ids: what a join keeps of each side. Rows are
// appended from batches and gathered back into Arrow arrays by id, both
// column at a time. A deleted row's id is reused by a later row.
type rowStore struct {
	cols []storeCol
	n    int32   // ids handed out
	free []int32 // deleted ids, reused first
}

// storeCol is one column: values by row id, valid false for NULL. Strings
// live in an arena; a reused or deleted row's bytes stay there as waste
// until the arena is compacted.
type storeCol struct {
	t     types.T
	dt    arrow.DataType
	valid []bool
	i64   []int64 // INT64, TIMESTAMP, DURATION
	i32   []int32 // DATE32
	f64   []float64
	dec   []decimal128.Num
	b     []bool
	soff  []uint32
	slen  []uint32
	arena []byte
	waste int
}

func newRowStore(ts []types.T) *rowStore {
	s := &rowStore{cols: make([]storeCol, len(ts))}
	for i, t := range ts {
		s.cols[i] = storeCol{t: t, dt: t.Arrow()}
	}
	return s
}

// live returns the number of rows stored.
func (s *rowStore) live() int { return int(s.n) - len(s.free) }

// bytes estimates the memory the store holds.
func (s *rowStore) bytes() int64 {
	var n int64
	for i := range s.cols {
		c := &s.cols[i]
		n += int64(len(c.valid)) + 8*int64(len(c.i64)+len(c.f64)) + 4*int64(len(c.i32)) + 16*int64(len(c.dec)) +
			int64(len(c.b)) + 8*int64(len(c.soff)) + int64(len(c.arena))
	}
	return n
}

// add stores row i of cols (one array per store column) and returns its id.
func (s *rowStore) add(cols []arrow.Array, i int) int32 {
	var id int32
	if k := len(s.free); k > 0 {
		id, s.free = s.free[k-1], s.free[:k-1]
	} else {
		id = s.n
		s.n++
		for j := range s.cols {
			s.cols[j].grow()
		}
	}
	for j := range s.cols {
		s.cols[j].set(id, cols[j], i)
	}
	return id
}

// remove deletes row id; its id may be handed out again.
func (s *rowStore) remove(id int32) {
	for j := range s.cols {
		c := &s.cols[j]
		if c.soff != nil {
			c.waste += int(c.slen[id])
			c.slen[id] = 0
		}
		c.valid[id] = false
	}
	s.free = append(s.free, id)
	for j := range s.cols {
		s.cols[j].compactIfWasteful()
	}
}

// equal reports whether row id holds the values of row i of cols.
func (s *rowStore) equal(id int32, cols []arrow.Array, i int) bool {
	for j := range s.cols {
		if !s.cols[j].equal(id, cols[j], i) {
			return false
		}
	}
	return true
}

// gather returns column j's values at ids as an Arrow array; id -1 gives
// NULL (a row an outer join pads).
func (s *rowStore) gather(alloc memory.Allocator, j int, ids []int32) arrow.Array {
	return s.cols[j].gather(alloc, ids)
}

func (c *storeCol) grow() {
	c.valid = append(c.valid, false)
	switch c.t.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		c.i64 = append(c.i64, 0)
	case types.PhysDate32:
		c.i32 = append(c.i32, 0)
	case types.PhysFloat64:
		c.f64 = append(c.f64, 0)
	case types.PhysDecimal:
		c.dec = append(c.dec, decimal128.Num{})
	case types.PhysBool:
		c.b = append(c.b, false)
	case types.PhysString:
		c.soff = append(c.soff, 0)
		c.slen = append(c.slen, 0)
	}
}

func (c *storeCol) set(id int32, a arrow.Array, i int) {
	if a.IsNull(i) {
		c.valid[id] = false
		return
	}
	c.valid[id] = true
	switch a := a.(type) {
	case *array.Int64:
		c.i64[id] = a.Value(i)
	case *array.Timestamp:
		c.i64[id] = int64(a.Value(i))
	case *array.Duration:
		c.i64[id] = int64(a.Value(i))
	case *array.Date32:
		c.i32[id] = int32(a.Value(i))
	case *array.Float64:
		c.f64[id] = a.Value(i)
	case *array.Decimal128:
		c.dec[id] = a.Value(i)
	case *array.Boolean:
		c.b[id] = a.Value(i)
	case *array.String:
		v := a.Value(i)
		c.soff[id], c.slen[id] = uint32(len(c.arena)), uint32(len(v))
		c.arena = append(c.arena, v...)
	default:
		panic(fmt.Sprintf("exec: row store cannot hold %T", a)) // the planner types every column
	}
}

func (c *storeCol) str(id int32) string {
	o := c.soff[id]
	return string(c.arena[o : o+c.slen[id]])
}

func (c *storeCol) equal(id int32, a arrow.Array, i int) bool {
	if a.IsNull(i) || !c.valid[id] {
		return a.IsNull(i) == !c.valid[id]
	}
	switch a := a.(type) {
	case *array.Int64:
		return c.i64[id] == a.Value(i)
	case *array.Timestamp:
		return c.i64[id] == int64(a.Value(i))
	case *array.Duration:
		return c.i64[id] == int64(a.Value(i))
	case *array.Date32:
		return c.i32[id] == int32(a.Value(i))
	case *array.Float64:
		return c.f64[id] == a.Value(i) || c.f64[id] != c.f64[id] && a.Value(i) != a.Value(i)
	case *array.Decimal128:
		return c.dec[id] == a.Value(i)
	case *array.Boolean:
		return c.b[id] == a.Value(i)
	case *array.String:
		o := c.soff[id]
		return string(c.arena[o:o+c.slen[id]]) == a.Value(i)
	}
	return false
}

// compactIfWasteful rewrites the string arena when most of it is waste.
func (c *storeCol) compactIfWasteful() {
	if c.soff == nil || c.waste < 1<<16 || c.waste < len(c.arena)/2 {
		return
	}
	arena := make([]byte, 0, len(c.arena)-c.waste)
	for id := range c.soff {
		if c.slen[id] == 0 {
			continue
		}
		o := c.soff[id]
		c.soff[id] = uint32(len(arena))
		arena = append(arena, c.arena[o:o+c.slen[id]]...)
	}
	c.arena, c.waste = arena, 0
}

func (c *storeCol) gather(alloc memory.Allocator, ids []int32) arrow.Array {
	bld := array.NewBuilder(alloc, c.dt)
	defer bld.Release()
	bld.Reserve(len(ids))
	switch b := bld.(type) {
	case *array.Int64Builder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.i64[id])
			}
		}
	case *array.TimestampBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Timestamp(c.i64[id]))
			}
		}
	case *array.DurationBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Duration(c.i64[id]))
			}
		}
	case *array.Date32Builder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Date32(c.i32[id]))
			}
		}
	case *array.Float64Builder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.f64[id])
			}
		}
	case *array.Decimal128Builder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.dec[id])
			}
		}
	case *array.BooleanBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.b[id])
			}
		}
	case *array.StringBuilder:
		for _, id := range ids {
			if id < 0 || !c.valid[id] {
				b.AppendNull()
			} else {
				o := c.soff[id]
				b.BinaryBuilder.Append(c.arena[o : o+c.slen[id]])
			}
		}
	case *array.NullBuilder:
		b.AppendNulls(len(ids))
	default:
		panic(fmt.Sprintf("exec: row store cannot build %s", c.dt))
	}
	return bld.NewArray()
}
