package dedup

import "bytes"

// The exact set: every remembered key with the time of the row that was
// kept for it. Entries live in a slice indexed by entry number and are
// found through an open-addressing table with linear probing keyed by the
// key's 64-bit hash (exec.HashRows of the key columns); the key's bytes
// (rowkey's encoding) live in the arena of the entry's time bucket. A key
// has several entries when its kept rows are more than a window apart.
// Nothing here allocates per row: the table and the entry slice grow by
// doubling, and entry numbers are reused through a free list.

// entry is one remembered key.
type entry struct {
	hash   uint64
	time   int64  // the kept row's event time or arrival time, ms
	bucket int32  // the bucket (an index in the operator's bucket pool)
	off, n uint32 // its key bytes: the bucket's keys[off : off+n]
	flags  uint8
}

// The flags of an entry.
const (
	// live: the entry holds a key (else its number is free).
	live uint8 = 1 << iota
	// dirty: the entry number is in the delta's list of entries to put at
	// the next snapshot (if still live then).
	dirty
	// written: a snapshot put the entry, so dropping it must delete it.
	written
)

// minTableSize is the smallest table: 256 slots, 1 KB.
const minTableSize = 256

// exactSet is the table of entries.
type exactSet struct {
	entries []entry
	free    []int32 // free entry numbers
	slots   []int32 // entry number + 1; 0 is empty
	mask    uint64
	n       int // live entries
}

// lookup reports whether the set holds an entry of hash h whose key bytes
// equal key (keyOf returns an entry's) and whose time is less than window
// away from t.
func (s *exactSet) lookup(h uint64, key []byte, t, window int64, keyOf func(*entry) []byte) bool {
	if s.n == 0 {
		return false
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return false
		}
		e := &s.entries[v-1]
		if e.hash == h && absDiff(t, e.time) < window && bytes.Equal(keyOf(e), key) {
			return true
		}
	}
}

// absDiff returns |a - b|, saturating rather than overflowing.
func absDiff(a, b int64) int64 {
	d := a - b
	if (a >= b) != (d >= 0) { // overflow
		return 1<<63 - 1
	}
	if d < 0 {
		return -d
	}
	return d
}

// add adds an entry and returns its number.
func (s *exactSet) add(e entry) int32 {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	var id int32
	if k := len(s.free); k > 0 {
		id = s.free[k-1]
		s.free = s.free[:k-1]
		e.flags |= s.entries[id].flags & dirty // the number may still be listed
		s.entries[id] = e
	} else {
		id = int32(len(s.entries))
		s.entries = append(s.entries, e)
	}
	s.entries[id].flags |= live
	s.place(e.hash, id)
	s.n++
	return id
}

// place puts entry id of hash h in the first empty slot of its probe
// sequence.
func (s *exactSet) place(h uint64, id int32) {
	i := h & s.mask
	for s.slots[i] != 0 {
		i = (i + 1) & s.mask
	}
	s.slots[i] = id + 1
}

// grow doubles the table (or makes the first) and places every entry again.
func (s *exactSet) grow() {
	size := max(2*len(s.slots), minTableSize)
	s.slots = make([]int32, size)
	s.mask = uint64(size - 1)
	for id := range s.entries {
		if s.entries[id].flags&live != 0 {
			s.place(s.entries[id].hash, int32(id))
		}
	}
}

// remove drops entry id (which must be live) and frees its number. The
// entries after it in its probe run move back (backward-shift deletion),
// so lookups never need tombstones.
func (s *exactSet) remove(id int32) {
	e := &s.entries[id]
	i := e.hash & s.mask
	for s.slots[i] != id+1 {
		i = (i + 1) & s.mask
	}
	for j := (i + 1) & s.mask; s.slots[j] != 0; j = (j + 1) & s.mask {
		home := s.entries[s.slots[j]-1].hash & s.mask
		// The entry at j may fill the hole at i if its home is not in the
		// cyclic range (i, j].
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	e.flags &^= live | written
	s.free = append(s.free, id)
	s.n--
}

// bytes estimates the memory of the set.
func (s *exactSet) bytes() int64 {
	return int64(cap(s.entries))*32 + int64(cap(s.slots))*4 + int64(cap(s.free))*4
}
