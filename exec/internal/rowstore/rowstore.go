// Package rowstore keeps rows column by column in typed slices, addressed
// by dense row ids: the rows a join keeps of each side and a window
// aggregate keeps of each partition.
package rowstore

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/arena"
)

// Store keeps rows of a fixed schema column by column, in typed slices,
// addressed by dense row ids: what a join keeps of each side. Rows are
// appended from batches and gathered back into Arrow arrays by id, both
// column at a time. A deleted row's id is reused by a later row.
type Store struct {
	Cols []Col
	n    int32   // ids handed out
	free []int32 // deleted ids, reused first
}

// Col is one column: values by row id, valid false for NULL. Strings
// live in an arena; a reused or deleted row's bytes stay there as waste
// until the arena is compacted.
type Col struct {
	T     types.T
	dt    arrow.DataType
	Valid []bool
	I64   []int64 // INT64, TIMESTAMP, DURATION
	i32   []int32 // DATE32
	F64   []float64
	Dec   []decimal128.Num
	b     []bool
	soff  []uint64
	slen  []uint32
	arena arena.Arena
	waste int
}

// New returns an empty store of rows of types ts.
func New(ts []types.T) *Store {
	s := &Store{Cols: make([]Col, len(ts))}
	for i, t := range ts {
		s.Cols[i] = Col{T: t, dt: t.Arrow()}
	}
	return s
}

// Live returns the number of rows stored.
func (s *Store) Live() int { return int(s.n) - len(s.free) }

// LiveBytes estimates the bytes of the rows held: the memory the store
// holds in proportion of its ids in use (a deleted row's memory stays
// until its id is reused).
func (s *Store) LiveBytes() int64 {
	if s.n == 0 {
		return 0
	}
	return s.Bytes() * int64(s.Live()) / int64(s.n)
}

// Bytes estimates the memory the store holds.
func (s *Store) Bytes() int64 {
	var n int64
	for i := range s.Cols {
		c := &s.Cols[i]
		n += int64(len(c.Valid)) + 8*int64(len(c.I64)+len(c.F64)) + 4*int64(len(c.i32)) + 16*int64(len(c.Dec)) +
			int64(len(c.b)) + 12*int64(len(c.soff)) + c.arena.Bytes()
	}
	return n
}

// ArrowBytes returns what the rows held would take as Arrow arrays: per
// column a validity bitmap and the values — 8 bytes a BIGINT, DOUBLE or
// timestamp, 4 a DATE, 16 a DECIMAL, a bit a BOOLEAN, and a string's
// 4-byte offset and its bytes. It is what Bytes compares with.
func (s *Store) ArrowBytes() int64 {
	live := int64(s.Live())
	bits := (live + 7) / 8
	var n int64
	for i := range s.Cols {
		c := &s.Cols[i]
		n += bits
		switch c.T.Physical() {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysFloat64:
			n += 8 * live
		case types.PhysDate32:
			n += 4 * live
		case types.PhysDecimal:
			n += 16 * live
		case types.PhysBool:
			n += bits
		case types.PhysString:
			n += 4*(live+1) + c.arena.Used() - int64(c.waste)
		}
	}
	return n
}

// Add stores row i of cols (one array per store column) and returns its id.
func (s *Store) Add(cols []arrow.Array, i int) int32 {
	id := s.newID()
	for j := range s.Cols {
		s.Cols[j].set(id, cols[j], i)
	}
	return id
}

// newID hands out a row id: a deleted row's, or a new one.
func (s *Store) newID() int32 {
	if k := len(s.free); k > 0 {
		id := s.free[k-1]
		s.free = s.free[:k-1]
		return id
	}
	id := s.n
	s.n++
	for j := range s.Cols {
		s.Cols[j].grow()
	}
	return id
}

// Reserve makes room for n more new row ids in every column, so that
// adding them does not grow the columns one append at a time (a restore,
// which does not know how many rows it reads, reserves in doubling
// steps).
func (s *Store) Reserve(n int) {
	for j := range s.Cols {
		c := &s.Cols[j]
		c.Valid = slices.Grow(c.Valid, n)
		switch c.T.Physical() {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
			c.I64 = slices.Grow(c.I64, n)
		case types.PhysDate32:
			c.i32 = slices.Grow(c.i32, n)
		case types.PhysFloat64:
			c.F64 = slices.Grow(c.F64, n)
		case types.PhysDecimal:
			c.Dec = slices.Grow(c.Dec, n)
		case types.PhysBool:
			c.b = slices.Grow(c.b, n)
		case types.PhysString:
			c.soff = slices.Grow(c.soff, n)
			c.slen = slices.Grow(c.slen, n)
		}
	}
}

// Remove deletes row id; its id may be handed out again.
func (s *Store) Remove(id int32) {
	for j := range s.Cols {
		c := &s.Cols[j]
		if c.soff != nil {
			c.waste += int(c.slen[id])
			c.slen[id] = 0
		}
		c.Valid[id] = false
	}
	s.free = append(s.free, id)
	for j := range s.Cols {
		s.Cols[j].compactIfWasteful()
	}
}

// Equal reports whether row id holds the values of row i of cols.
func (s *Store) Equal(id int32, cols []arrow.Array, i int) bool {
	for j := range s.Cols {
		if !s.Cols[j].equal(id, cols[j], i) {
			return false
		}
	}
	return true
}

// Gather returns column j's values at ids as an Arrow array; id -1 gives
// NULL (a row an outer join pads).
func (s *Store) Gather(alloc memory.Allocator, j int, ids []int32) arrow.Array {
	return s.Cols[j].gather(alloc, ids)
}

func (c *Col) grow() {
	c.Valid = grow1(c.Valid)
	switch c.T.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		c.I64 = grow1(c.I64)
	case types.PhysDate32:
		c.i32 = grow1(c.i32)
	case types.PhysFloat64:
		c.F64 = grow1(c.F64)
	case types.PhysDecimal:
		c.Dec = grow1(c.Dec)
	case types.PhysBool:
		c.b = grow1(c.b)
	case types.PhysString:
		c.soff = grow1(c.soff)
		c.slen = grow1(c.slen)
	}
}

// grow1 returns s one zero element longer. A full slice doubles: append
// would grow a large one by a quarter, copying a store of millions of rows
// some four times over as it fills rather than once.
func grow1[E any](s []E) []E {
	if len(s) == cap(s) {
		n := make([]E, len(s), max(2*cap(s), 64))
		copy(n, s)
		s = n
	}
	var zero E
	return append(s, zero)
}

func (c *Col) set(id int32, a arrow.Array, i int) {
	if a.IsNull(i) {
		c.Valid[id] = false
		return
	}
	c.Valid[id] = true
	switch a := a.(type) {
	case *array.Int64:
		c.I64[id] = a.Value(i)
	case *array.Timestamp:
		c.I64[id] = int64(a.Value(i))
	case *array.Duration:
		c.I64[id] = int64(a.Value(i))
	case *array.Date32:
		c.i32[id] = int32(a.Value(i))
	case *array.Float64:
		c.F64[id] = a.Value(i)
	case *array.Decimal128:
		c.Dec[id] = a.Value(i)
	case *array.Boolean:
		c.b[id] = a.Value(i)
	case *array.String:
		v := a.Value(i)
		c.soff[id], c.slen[id] = c.arena.AddString(v), uint32(len(v))
	default:
		panic(fmt.Sprintf("exec: row store cannot hold %T", a)) // the planner types every column
	}
}

func (c *Col) str(id int32) string {
	return string(c.arena.At(c.soff[id], c.slen[id]))
}

func (c *Col) equal(id int32, a arrow.Array, i int) bool { return c.equalAt(id, a, i, false) }

// equalAt reports whether row id's value equals row i of a: DOUBLEs as
// numbers (NaN equal to NaN), or, with keyBits, as rowkey encodes them.
func (c *Col) equalAt(id int32, a arrow.Array, i int, byKeyBits bool) bool {
	if a.IsNull(i) || !c.Valid[id] {
		return a.IsNull(i) == !c.Valid[id]
	}
	switch a := a.(type) {
	case *array.Int64:
		return c.I64[id] == a.Value(i)
	case *array.Timestamp:
		return c.I64[id] == int64(a.Value(i))
	case *array.Duration:
		return c.I64[id] == int64(a.Value(i))
	case *array.Date32:
		return c.i32[id] == int32(a.Value(i))
	case *array.Float64:
		if byKeyBits {
			return keyBits(c.F64[id]) == keyBits(a.Value(i))
		}
		return c.F64[id] == a.Value(i) || c.F64[id] != c.F64[id] && a.Value(i) != a.Value(i)
	case *array.Decimal128:
		return c.Dec[id] == a.Value(i)
	case *array.Boolean:
		return c.b[id] == a.Value(i)
	case *array.String:
		return c.str(id) == a.Value(i)
	}
	return false
}

// compactIfWasteful rewrites the string arena when most of it is waste.
func (c *Col) compactIfWasteful() {
	if c.soff == nil || c.waste < 1<<16 || int64(c.waste) < c.arena.Used()/2 {
		return
	}
	var fresh arena.Arena
	fresh.Reserve(c.arena.Used() - int64(c.waste))
	for id := range c.soff {
		if c.slen[id] == 0 {
			// An empty string, or a removed row: it owns no bytes, and
			// its old offset may lie past the compacted arena.
			c.soff[id] = 0
			continue
		}
		c.soff[id] = fresh.Add(c.arena.At(c.soff[id], c.slen[id]))
	}
	c.arena, c.waste = fresh, 0
}

func (c *Col) gather(alloc memory.Allocator, ids []int32) arrow.Array {
	bld := array.NewBuilder(alloc, c.dt)
	defer bld.Release()
	bld.Reserve(len(ids))
	switch b := bld.(type) {
	case *array.Int64Builder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.I64[id])
			}
		}
	case *array.TimestampBuilder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Timestamp(c.I64[id]))
			}
		}
	case *array.DurationBuilder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Duration(c.I64[id]))
			}
		}
	case *array.Date32Builder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(arrow.Date32(c.i32[id]))
			}
		}
	case *array.Float64Builder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.F64[id])
			}
		}
	case *array.Decimal128Builder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.Dec[id])
			}
		}
	case *array.BooleanBuilder:
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.UnsafeAppend(c.b[id])
			}
		}
	case *array.StringBuilder:
		// The values' bytes at once: appended one by one, the builder
		// would grow its data buffer by doubling, a fresh copy each time.
		size := 0
		for _, id := range ids {
			if id >= 0 && c.Valid[id] {
				size += int(c.slen[id])
			}
		}
		b.ReserveData(size)
		for _, id := range ids {
			if id < 0 || !c.Valid[id] {
				b.AppendNull()
			} else {
				b.BinaryBuilder.Append(c.arena.At(c.soff[id], c.slen[id]))
			}
		}
	case *array.NullBuilder:
		b.AppendNulls(len(ids))
	default:
		panic(fmt.Sprintf("exec: row store cannot build %s", c.dt))
	}
	return bld.NewArray()
}

// Compare orders the non-NULL values of rows a and b as types.Compare
// does (a double's NaN first).
func (c *Col) Compare(a, b int32) int {
	switch c.T.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return cmp.Compare(c.I64[a], c.I64[b])
	case types.PhysDate32:
		return cmp.Compare(c.i32[a], c.i32[b])
	case types.PhysFloat64:
		return cmp.Compare(c.F64[a], c.F64[b])
	case types.PhysDecimal:
		return c.Dec[a].Cmp(c.Dec[b])
	case types.PhysBool:
		return cmp.Compare(b2i(c.b[a]), b2i(c.b[b]))
	case types.PhysString:
		return bytes.Compare(c.arena.At(c.soff[a], c.slen[a]), c.arena.At(c.soff[b], c.slen[b]))
	}
	return 0
}

// Same reports whether rows a and b hold the Same representation (a
// double's bits, not just an equal value).
func (c *Col) Same(a, b int32) bool {
	if a == b {
		return true
	}
	if c.Valid[a] != c.Valid[b] {
		return false
	}
	if c.T.Physical() == types.PhysFloat64 {
		return math.Float64bits(c.F64[a]) == math.Float64bits(c.F64[b])
	}
	return !c.Valid[a] || c.Compare(a, b) == 0
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SameAs reports whether row a of c and row b of d, a column of the same
// type, hold the same representation, as Same does within one column.
func (c *Col) SameAs(a int32, d *Col, b int32) bool {
	if c.Valid[a] != d.Valid[b] {
		return false
	}
	if !c.Valid[a] {
		return true
	}
	switch c.T.Physical() {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return c.I64[a] == d.I64[b]
	case types.PhysDate32:
		return c.i32[a] == d.i32[b]
	case types.PhysFloat64:
		return math.Float64bits(c.F64[a]) == math.Float64bits(d.F64[b])
	case types.PhysDecimal:
		return c.Dec[a] == d.Dec[b]
	case types.PhysBool:
		return c.b[a] == d.b[b]
	case types.PhysString:
		return bytes.Equal(c.arena.At(c.soff[a], c.slen[a]), d.arena.At(d.soff[b], d.slen[b]))
	}
	return true
}

// Int returns row id's value in an integer, TIMESTAMP, INTERVAL or DATE
// column (days for a DATE).
func (c *Col) Int(id int32) int64 {
	if c.T.Physical() == types.PhysDate32 {
		return int64(c.i32[id])
	}
	return c.I64[id]
}
