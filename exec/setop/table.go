package setop

import "bytes"

// The counts: every distinct row held with its count in each input.
// Entries live in a slice indexed by entry number and are found through an
// open-addressing table with linear probing keyed by the row's 64-bit hash;
// the row's encoding (rowkey's) lives in an arena. The table, the entries
// and the arena grow by doubling and entry numbers are reused through a
// free list, so a steady stream allocates nothing per row; the arena is
// compacted when the keys of removed rows fill half of it.

// entry is one distinct row.
type entry struct {
	hash   uint64
	a, b   int64  // the row's count in the left and the right input
	off, n uint32 // its key bytes: the arena's [off : off+n]
	flags  uint8
}

// The flags of an entry.
const (
	// live: the entry holds a row (else its number is free).
	live uint8 = 1 << iota
	// dirty: the entry number is in the list of entries to put at the
	// next snapshot (if still live then).
	dirty
	// written: a snapshot put the entry, so removing it must delete it.
	written
)

// minTableSize is the smallest table: 256 slots, 1 KB.
const minTableSize = 256

// table is the table of entries.
type table struct {
	entries []entry
	free    []int32 // free entry numbers
	slots   []int32 // entry number + 1; 0 is empty
	mask    uint64
	n       int // live entries
	arena   []byte
	garbage int // bytes of the arena no live entry uses
}

// key returns the key bytes of entry e.
func (s *table) key(e *entry) []byte { return s.arena[e.off : e.off+e.n] }

// find returns the number of the entry of hash h and key bytes key, or -1.
func (s *table) find(h uint64, key []byte) int32 {
	if s.n == 0 {
		return -1
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return -1
		}
		if e := &s.entries[v-1]; e.hash == h && bytes.Equal(s.key(e), key) {
			return v - 1
		}
	}
}

// add adds an entry of hash h and key bytes key, with zero counts, and
// returns its number.
func (s *table) add(h uint64, key []byte) int32 {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	if s.garbage > 1<<16 && 2*s.garbage > len(s.arena) {
		s.compact()
	}
	e := entry{hash: h, off: uint32(len(s.arena)), n: uint32(len(key)), flags: live}
	s.arena = append(s.arena, key...)
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
	s.place(h, id)
	s.n++
	return id
}

// place puts entry id of hash h in the first empty slot of its probe
// sequence.
func (s *table) place(h uint64, id int32) {
	i := h & s.mask
	for s.slots[i] != 0 {
		i = (i + 1) & s.mask
	}
	s.slots[i] = id + 1
}

// grow doubles the table (or makes the first) and places every entry again.
func (s *table) grow() {
	size := max(2*len(s.slots), minTableSize)
	s.slots = make([]int32, size)
	s.mask = uint64(size - 1)
	for id := range s.entries {
		if s.entries[id].flags&live != 0 {
			s.place(s.entries[id].hash, int32(id))
		}
	}
}

// compact copies the keys of the live entries into a new arena.
func (s *table) compact() {
	arena := make([]byte, 0, len(s.arena)-s.garbage+len(s.arena)/4)
	for id := range s.entries {
		e := &s.entries[id]
		if e.flags&live == 0 {
			continue
		}
		off := len(arena)
		arena = append(arena, s.key(e)...)
		e.off = uint32(off)
	}
	s.arena, s.garbage = arena, 0
}

// remove drops entry id (which must be live) and frees its number. The
// entries after it in its probe run move back (backward-shift deletion),
// so lookups never need tombstones.
func (s *table) remove(id int32) {
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
	s.garbage += int(e.n)
	e.flags &^= live | written
	e.a, e.b = 0, 0
	s.free = append(s.free, id)
	s.n--
}

// bytes estimates the memory of the table.
func (s *table) bytes() int64 {
	return int64(cap(s.entries))*40 + int64(cap(s.slots))*4 + int64(cap(s.free))*4 + int64(cap(s.arena))
}
