package aggstate

import (
	"unsafe"

	"github.com/eddysql/eddy/internal/hugepage"
)

// CountSet is an unordered multiset of values with counts, in an
// open-addressing table with linear probing: the per-group state of a
// DISTINCT aggregate, which asks only whether a value is held, not which
// is least. A change costs O(1) where a Multiset's costs a binary search
// and a copy of part of a bucket. The caller hashes the values (Add's h),
// so that a table of integers does not pay for strings' hashing. The zero
// value is empty and ready to use.
type CountSet[V Ordered] struct {
	slots []countEntry[V]
	n     int
}

// countEntry is a slot: a value, its count (0: the slot is empty) and its
// hash.
type countEntry[V Ordered] struct {
	v V
	n int64
	h uint64
}

// Len returns the number of distinct values held.
func (s *CountSet[V]) Len() int { return s.n }

// Reset empties the set.
func (s *CountSet[V]) Reset() { *s = CountSet[V]{} }

// Bytes returns the memory of the table.
func (s *CountSet[V]) Bytes() int64 {
	var e countEntry[V]
	return int64(cap(s.slots)) * int64(unsafe.Sizeof(e))
}

// Peek reads the home slot of hash h and returns its count, so that a
// caller about to add many values can first touch their slots in a loop
// whose loads do not wait on each other: in a table larger than the
// caches each is a miss, and the processor overlaps independent misses
// where Add's lookups, one after the other, each wait for theirs.
func (s *CountSet[V]) Peek(h uint64) int64 {
	if len(s.slots) == 0 {
		return 0
	}
	return s.slots[int(h)&(len(s.slots)-1)].n
}

// find returns the slot of v, of hash h, or the empty slot where it
// belongs.
func (s *CountSet[V]) find(v V, h uint64) int {
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := &s.slots[i]
		if e.n == 0 || e.h == h && e.v == v {
			return i
		}
	}
}

// Add adds w occurrences (negative: removes -w) of v, whose hash is h, and
// returns the count before. A removal of more occurrences than are held
// is ErrNegativeCount, and changes nothing. clone, if set, copies a value
// the set keeps.
func (s *CountSet[V]) Add(v V, h uint64, w int64, clone func(V) V) (before int64, err error) {
	if len(s.slots) == 0 {
		if w < 0 {
			return 0, ErrNegativeCount
		}
		s.slots = make([]countEntry[V], 4)
	}
	i := s.find(v, h)
	e := &s.slots[i]
	before = e.n
	switch after := before + w; {
	case after < 0:
		return before, ErrNegativeCount
	case before == 0 && after > 0:
		if clone != nil {
			v = clone(v)
		}
		*e = countEntry[V]{v: v, n: after, h: h}
		s.n++
		if 4*s.n > 3*len(s.slots) {
			s.grow()
		}
	case after == 0 && before > 0:
		s.remove(i)
	default:
		e.n = after
	}
	return before, nil
}

// grow doubles the table.
func (s *CountSet[V]) grow() {
	old := s.slots
	s.slots = hugepage.Make[countEntry[V]](2 * len(old))
	mask := len(s.slots) - 1
	for _, e := range old {
		if e.n == 0 {
			continue
		}
		i := int(e.h) & mask
		for s.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
	}
}

// remove empties slot i, moving back the entries after it that may fill
// it (backward-shift deletion: lookups never meet a tombstone).
func (s *CountSet[V]) remove(i int) {
	mask := len(s.slots) - 1
	for j := (i + 1) & mask; s.slots[j].n != 0; j = (j + 1) & mask {
		home := int(s.slots[j].h) & mask
		// The entry at j may move to the hole at i if its home is not in
		// the cyclic range (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = countEntry[V]{}
	s.n--
}

// Each calls fn for every value held with its count, in no particular
// order.
func (s *CountSet[V]) Each(fn func(v V, n int64)) {
	for i := range s.slots {
		if e := &s.slots[i]; e.n != 0 {
			fn(e.v, e.n)
		}
	}
}
