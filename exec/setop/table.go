package setop

import (
	"bytes"

	"github.com/eddysql/eddy/exec/internal/probe"
)

// The counts: every distinct row held with its count in each input.
// Entries live in a slice indexed by entry number and are found through an
// open-addressing index keyed by the row's 64-bit hash (exec/internal/probe);
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

// table is the table of entries.
type table struct {
	entries []entry
	free    []int32     // free entry numbers
	idx     probe.Index // entry numbers by hash
	arena   []byte
	garbage int // bytes of the arena no live entry uses
}

// key returns the key bytes of entry e.
func (s *table) key(e *entry) []byte { return s.arena[e.off : e.off+e.n] }

// find returns the number of the entry of hash h and key bytes key, or -1.
func (s *table) find(h uint64, key []byte) int32 {
	return s.idx.Find(h, func(id int32) bool {
		e := &s.entries[id]
		return e.hash == h && bytes.Equal(s.key(e), key)
	})
}

// add adds an entry of hash h and key bytes key, with zero counts, and
// returns its number.
func (s *table) add(h uint64, key []byte) int32 {
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
	s.idx.Insert(h, id)
	return id
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
	s.idx.Remove(e.hash, id)
	s.garbage += int(e.n)
	e.flags &^= live | written
	e.a, e.b = 0, 0
	s.free = append(s.free, id)
}

// bytes estimates the memory of the table.
func (s *table) bytes() int64 {
	return int64(cap(s.entries))*40 + s.idx.Bytes() + int64(cap(s.free))*4 + int64(cap(s.arena))
}
