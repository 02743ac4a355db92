package aggstate

import (
	"unsafe"

	"github.com/eddysql/eddy/internal/hugepage"
)

// MaxPresence is how many aggregates one PresenceSet keeps a bit for.
const MaxPresence = 32

// PresenceSet is the per-group state of up to MaxPresence DISTINCT
// aggregates over an input that never retracts: each value held, with a
// bit per aggregate that has seen it. A value's count does not matter
// when it cannot be retracted, so a slot is a value, half its hash and
// the bits: 16 bytes for an integer, where a CountSet's slot of one
// aggregate takes 24. Aggregates over one column, some of them filtered
// (COUNT(DISTINCT bidder) and COUNT(DISTINCT CASE WHEN price < 10000 THEN
// bidder END)), find a row's value with one lookup where sets of their
// own cost one each (a cache miss each, in tables larger than the
// caches). It is an open-addressing table with linear probing; a slot is
// empty when its bits are 0. The zero value is empty and ready to use.
type PresenceSet[V Ordered] struct {
	slots []presenceEntry[V]
	n     int
}

// presenceEntry is a slot: a value, the low half of its hash, and the
// aggregates that have seen it.
type presenceEntry[V Ordered] struct {
	v    V
	h    uint32
	bits uint32
}

// Len returns the number of values held.
func (s *PresenceSet[V]) Len() int { return s.n }

// Reset empties the set.
func (s *PresenceSet[V]) Reset() { *s = PresenceSet[V]{} }

// Bytes returns the memory of the table.
func (s *PresenceSet[V]) Bytes() int64 {
	var e presenceEntry[V]
	return int64(cap(s.slots)) * int64(unsafe.Sizeof(e))
}

// Peek reads the home slot of hash h, as CountSet.Peek does.
func (s *PresenceSet[V]) Peek(h uint64) int64 {
	if len(s.slots) == 0 {
		return 0
	}
	return int64(s.slots[int(uint32(h))&(len(s.slots)-1)].bits)
}

// Add marks v, whose hash is h, as seen by the aggregates of bits, and
// returns those that had seen it before. bits must not be 0. clone, if
// set, copies a value the set keeps.
func (s *PresenceSet[V]) Add(v V, h uint64, bits uint32, clone func(V) V) (before uint32) {
	if len(s.slots) == 0 {
		s.slots = make([]presenceEntry[V], 8)
	}
	h32 := uint32(h)
	mask := len(s.slots) - 1
	i := int(h32) & mask
	for ; s.slots[i].bits != 0; i = (i + 1) & mask {
		if e := &s.slots[i]; e.h == h32 && e.v == v {
			before = e.bits
			e.bits |= bits
			return before
		}
	}
	if clone != nil {
		v = clone(v)
	}
	s.slots[i] = presenceEntry[V]{v: v, h: h32, bits: bits}
	s.n++
	if 4*s.n > 3*len(s.slots) {
		s.grow()
	}
	return 0
}

// grow doubles the table. An entry's new home is its old home or that
// plus len(old), so both halves of the new table are written nearly in
// order.
func (s *PresenceSet[V]) grow() {
	old := s.slots
	s.slots = hugepage.Make[presenceEntry[V]](2 * len(old))
	mask := len(s.slots) - 1
	for j := range old {
		e := &old[j]
		if e.bits == 0 {
			continue
		}
		i := int(e.h) & mask
		for s.slots[i].bits != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = *e
	}
}

// Each calls fn for every value held with its bits, in no particular
// order.
func (s *PresenceSet[V]) Each(fn func(v V, bits uint32)) {
	for i := range s.slots {
		if e := &s.slots[i]; e.bits != 0 {
			fn(e.v, e.bits)
		}
	}
}
