// Package rowstore keeps rows column by column in typed paged vectors
// (exec/internal/paged), addressed by dense row ids: the rows a join keeps
// of each side and a window aggregate keeps of each partition.
package rowstore

import (
	"bytes"
	"cmp"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/arena"
	"github.com/eddysql/eddy/exec/internal/paged"
)

// Store keeps rows of a fixed schema column by column, in typed paged
// vectors, addressed by dense row ids: what a join keeps of each side.
// Rows are appended from batches and gathered back into Arrow arrays by
// id, both column at a time. A deleted row's id is reused by a later row.
// Every column has room for the same ids (room): a new id past it grows
// each column by a page, never copying the rows held.
type Store struct {
	Cols []Col
	n    int32   // ids handed out
	room int     // ids every column has room for
	free []int32 // deleted ids, reused first
}

// Col is one column: values by row id, valid false for NULL. Strings
// live in an arena, where rows may share a repeated value's bytes
// (interner); a deleted row's bytes stay there as waste until the arena
// is compacted.
type Col struct {
	T     types.T
	phys  types.Physical
	dt    arrow.DataType
	valid paged.Vec[bool]
	i64   paged.Vec[int64] // INT64, TIMESTAMP, DURATION
	i32   paged.Vec[int32] // DATE32
	f64   paged.Vec[float64]
	dec   paged.Vec[decimal128.Num]
	b     paged.Vec[bool]
	soff  paged.Vec[uint64]
	slen  paged.Vec[uint32]
	arena arena.Arena
	// intern lets rows share the bytes of repeated values; waste is
	// the bytes of the values removed rows held, shared or not.
	intern interner
	waste  int
}

// New returns an empty store of rows of types ts.
func New(ts []types.T) *Store {
	s := &Store{Cols: make([]Col, len(ts))}
	for i, t := range ts {
		s.Cols[i] = Col{T: t, phys: t.Physical(), dt: t.Arrow()}
	}
	return s
}

// ValidAt reports whether row id's value is not NULL.
func (c *Col) ValidAt(id int32) bool { return c.valid.At(id) }

// Int64At returns row id's value in a BIGINT, TIMESTAMP or INTERVAL
// column.
func (c *Col) Int64At(id int32) int64 { return c.i64.At(id) }

// Float64At returns row id's value in a DOUBLE column.
func (c *Col) Float64At(id int32) float64 { return c.f64.At(id) }

// DecimalAt returns row id's value in a DECIMAL column.
func (c *Col) DecimalAt(id int32) decimal128.Num { return c.dec.At(id) }

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
		n += c.valid.Bytes() + c.i64.Bytes() + c.f64.Bytes() + c.i32.Bytes() + c.dec.Bytes() +
			c.b.Bytes() + c.soff.Bytes() + c.slen.Bytes() + c.arena.Bytes()
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
		switch c.phys {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysFloat64:
			n += 8 * live
		case types.PhysDate32:
			n += 4 * live
		case types.PhysDecimal:
			n += 16 * live
		case types.PhysBool:
			n += bits
		case types.PhysString:
			n += 4*(live+1) + c.arena.Used() + c.intern.shared - int64(c.waste)
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
	if int(id) >= s.room {
		s.grow(int(id) + 1)
	}
	s.n++
	return id
}

// Reserve makes room for n more new row ids in every column, so that
// adding them allocates nothing (a restore, which does not know how many
// rows it reads, reserves in doubling steps).
func (s *Store) Reserve(n int) { s.grow(int(s.n) + n) }

// grow makes room for ids 0..n-1 in every column.
func (s *Store) grow(n int) {
	for j := range s.Cols {
		s.Cols[j].grow(n)
	}
	s.room = paged.Room(s.room, n)
}

// Remove deletes row id; its id may be handed out again.
func (s *Store) Remove(id int32) {
	for j := range s.Cols {
		c := &s.Cols[j]
		if c.phys == types.PhysString {
			c.waste += int(c.slen.At(id))
			c.slen.Set(id, 0)
		}
		c.valid.Set(id, false)
	}
	s.free = append(s.free, id)
	for j := range s.Cols {
		s.Cols[j].compactIfWasteful(s.n)
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

// grow makes room for ids 0..n-1 in the column's vectors.
func (c *Col) grow(n int) {
	c.valid.Grow(n)
	switch c.phys {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		c.i64.Grow(n)
	case types.PhysDate32:
		c.i32.Grow(n)
	case types.PhysFloat64:
		c.f64.Grow(n)
	case types.PhysDecimal:
		c.dec.Grow(n)
	case types.PhysBool:
		c.b.Grow(n)
	case types.PhysString:
		c.soff.Grow(n)
		c.slen.Grow(n)
	}
}

func (c *Col) set(id int32, a arrow.Array, i int) {
	if a.IsNull(i) {
		c.valid.Set(id, false)
		return
	}
	c.valid.Set(id, true)
	switch a := a.(type) {
	case *array.Int64:
		c.i64.Set(id, a.Value(i))
	case *array.Timestamp:
		c.i64.Set(id, int64(a.Value(i)))
	case *array.Duration:
		c.i64.Set(id, int64(a.Value(i)))
	case *array.Date32:
		c.i32.Set(id, int32(a.Value(i)))
	case *array.Float64:
		c.f64.Set(id, a.Value(i))
	case *array.Decimal128:
		c.dec.Set(id, a.Value(i))
	case *array.Boolean:
		c.b.Set(id, a.Value(i))
	case *array.String:
		v := a.Value(i)
		c.soff.Set(id, c.intern.add(&c.arena, v))
		c.slen.Set(id, uint32(len(v)))
	default:
		panic(fmt.Sprintf("exec: row store cannot hold %T", a)) // the planner types every column
	}
}

func (c *Col) str(id int32) string {
	return string(c.arena.At(c.soff.At(id), c.slen.At(id)))
}

func (c *Col) equal(id int32, a arrow.Array, i int) bool { return c.equalAt(id, a, i, false) }

// equalAt reports whether row id's value equals row i of a: DOUBLEs as
// numbers (NaN equal to NaN), or, with keyBits, as rowkey encodes them.
func (c *Col) equalAt(id int32, a arrow.Array, i int, byKeyBits bool) bool {
	if a.IsNull(i) || !c.valid.At(id) {
		return a.IsNull(i) == !c.valid.At(id)
	}
	switch a := a.(type) {
	case *array.Int64:
		return c.i64.At(id) == a.Value(i)
	case *array.Timestamp:
		return c.i64.At(id) == int64(a.Value(i))
	case *array.Duration:
		return c.i64.At(id) == int64(a.Value(i))
	case *array.Date32:
		return c.i32.At(id) == int32(a.Value(i))
	case *array.Float64:
		if byKeyBits {
			return keyBits(c.f64.At(id)) == keyBits(a.Value(i))
		}
		return c.f64.At(id) == a.Value(i) || c.f64.At(id) != c.f64.At(id) && a.Value(i) != a.Value(i)
	case *array.Decimal128:
		return c.dec.At(id) == a.Value(i)
	case *array.Boolean:
		return c.b.At(id) == a.Value(i)
	case *array.String:
		return c.str(id) == a.Value(i)
	}
	return false
}

// compactIfWasteful rewrites the string arena, holding the strings of
// ids below n, when at least half of the bytes its rows were given (their
// own or shared) belonged to rows since removed.
func (c *Col) compactIfWasteful(n int32) {
	if c.phys != types.PhysString || c.waste < 1<<16 || int64(c.waste) < (c.arena.Used()+c.intern.shared)/2 {
		return
	}
	var fresh arena.Arena
	fresh.Reserve(min(c.arena.Used(), c.arena.Used()+c.intern.shared-int64(c.waste)))
	// Rows that shared a value's bytes share its new copy: the same old
	// offset is the same value.
	var moved map[uint64]uint64
	if c.intern.shared > 0 {
		moved = make(map[uint64]uint64)
	}
	var live int64
	for p := 0; p < c.soff.Pages() && p<<paged.Shift < int(n); p++ {
		offs, lens := c.soff.Page(p), c.slen.Page(p)
		offs = offs[:min(len(offs), int(n)-p<<paged.Shift)]
		lens = lens[:len(offs)]
		for k, l := range lens {
			if l == 0 {
				// An empty string, or a removed row: it owns no bytes, and
				// its old offset may lie past the compacted arena.
				offs[k] = 0
				continue
			}
			live += int64(l)
			if moved == nil || l < minInterned {
				offs[k] = fresh.Add(c.arena.At(offs[k], l))
				continue
			}
			to, ok := moved[offs[k]]
			if !ok {
				to = fresh.Add(c.arena.At(offs[k], l))
				moved[offs[k]] = to
			}
			offs[k] = to
		}
	}
	c.arena, c.waste = fresh, 0
	c.intern.forget()
	c.intern.shared = live - fresh.Used()
}

// Compare orders the non-NULL values of rows a and b as types.Compare
// does (a double's NaN first).
func (c *Col) Compare(a, b int32) int {
	switch c.phys {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return cmp.Compare(c.i64.At(a), c.i64.At(b))
	case types.PhysDate32:
		return cmp.Compare(c.i32.At(a), c.i32.At(b))
	case types.PhysFloat64:
		return cmp.Compare(c.f64.At(a), c.f64.At(b))
	case types.PhysDecimal:
		return c.dec.At(a).Cmp(c.dec.At(b))
	case types.PhysBool:
		return cmp.Compare(b2i(c.b.At(a)), b2i(c.b.At(b)))
	case types.PhysString:
		return bytes.Compare(c.arena.At(c.soff.At(a), c.slen.At(a)), c.arena.At(c.soff.At(b), c.slen.At(b)))
	}
	return 0
}

// Same reports whether rows a and b hold the Same representation (a
// double's bits, not just an equal value).
func (c *Col) Same(a, b int32) bool {
	if a == b {
		return true
	}
	if c.valid.At(a) != c.valid.At(b) {
		return false
	}
	if c.phys == types.PhysFloat64 {
		return math.Float64bits(c.f64.At(a)) == math.Float64bits(c.f64.At(b))
	}
	return !c.valid.At(a) || c.Compare(a, b) == 0
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
	if c.valid.At(a) != d.valid.At(b) {
		return false
	}
	if !c.valid.At(a) {
		return true
	}
	switch c.phys {
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return c.i64.At(a) == d.i64.At(b)
	case types.PhysDate32:
		return c.i32.At(a) == d.i32.At(b)
	case types.PhysFloat64:
		return math.Float64bits(c.f64.At(a)) == math.Float64bits(d.f64.At(b))
	case types.PhysDecimal:
		return c.dec.At(a) == d.dec.At(b)
	case types.PhysBool:
		return c.b.At(a) == d.b.At(b)
	case types.PhysString:
		return bytes.Equal(c.arena.At(c.soff.At(a), c.slen.At(a)), d.arena.At(d.soff.At(b), d.slen.At(b)))
	}
	return true
}

// Int returns row id's value in an integer, TIMESTAMP, INTERVAL or DATE
// column (days for a DATE).
func (c *Col) Int(id int32) int64 {
	if c.phys == types.PhysDate32 {
		return int64(c.i32.At(id))
	}
	return c.i64.At(id)
}

// DatumAt returns row id's value as a datum, as types.DatumAt reads it
// from the column Gather builds.
func (c *Col) DatumAt(id int32) types.Datum {
	if !c.valid.At(id) {
		return types.NullDatum
	}
	switch c.phys {
	case types.PhysBool:
		return types.BoolDatum(c.b.At(id))
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return types.IntDatum(c.i64.At(id))
	case types.PhysDate32:
		return types.IntDatum(int64(c.i32.At(id)))
	case types.PhysFloat64:
		return types.FloatDatum(c.f64.At(id))
	case types.PhysDecimal:
		return types.DecimalDatum(c.dec.At(id))
	case types.PhysString:
		return types.StringDatum(c.str(id))
	}
	return types.NullDatum
}
