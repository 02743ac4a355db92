package dedup

import (
	"bytes"

	"github.com/eddysql/eddy/exec/internal/probe"
)

// The exact set: every remembered key with the time of the row that was
// kept for it. Entries live in a slice indexed by entry number and are
// found through an open-addressing index keyed by the key's 64-bit hash
// (exec/internal/probe) (exec.HashRows of the key columns); the key's bytes
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

// exactSet is the table of entries.
type exactSet struct {
	entries []entry
	free    []int32     // free entry numbers
	idx     probe.Index // entry numbers by hash
}

// lookup reports whether the set holds an entry of hash h whose key bytes
// equal key (keyOf returns an entry's) and whose time is less than window
// away from t.
func (s *exactSet) lookup(h uint64, key []byte, t, window int64, keyOf func(*entry) []byte) bool {
	return s.idx.Find(h, func(id int32) bool {
		e := &s.entries[id]
		return e.hash == h && absDiff(t, e.time) < window && bytes.Equal(keyOf(e), key)
	}) >= 0
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
	s.idx.Insert(e.hash, id)
	return id
}

// remove drops entry id (which must be live) and frees its number. The
// entries after it in its probe run move back (backward-shift deletion),
// so lookups never need tombstones.
func (s *exactSet) remove(id int32) {
	e := &s.entries[id]
	s.idx.Remove(e.hash, id)
	e.flags &^= live | written
	s.free = append(s.free, id)
}

// bytes estimates the memory of the set.
func (s *exactSet) bytes() int64 {
	return int64(cap(s.entries))*32 + s.idx.Bytes() + int64(cap(s.free))*4
}
