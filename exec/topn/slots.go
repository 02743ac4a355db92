package topn

import (
	"bytes"

	"github.com/zeebo/xxh3"

	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/arena"
	"github.com/eddysql/eddy/exec/internal/probe"
)

// The state of the de-duplication fast path holds no Go pointer per
// partition, so that the garbage collector has nothing of it to mark: a
// map of strings to *slot made three heap objects of every partition (the
// slot, its partition key and its row's key), and millions of partitions
// cost a quarter of a query's CPU in marking them and hashing the map.
//
// A partition is a slot, a fixed-width struct numbered by an int32 in a
// paged column (aggstate.Column: growing never copies the others), whose
// freed numbers are reused. Its bytes — the partition key, its row's sort
// key and the sort key of the entry checkpoints hold — are offsets into
// one arena. An open-addressing index (probe.Index) finds a slot from the
// xxh3 hash of its partition key, which the slot keeps.
//
// A row replaced by a smaller one appends its key to the arena and leaves
// the old bytes dead, unless the entry held still refers to them; so does
// a snapshot that moves the entry held, and a dropped partition. When
// dead bytes outnumber the live ones (and a minimum), compact moves the
// live bytes together, a block of the arena at a time. It runs between
// chunks only, when no view of the arena (an output row, a touched
// slot's old key) remains.

// slot is the state of one partition in the de-duplication fast path:
// its only row, and what checkpoints need of it (dedupstate.go).
type slot struct {
	hash   uint64 // xxh3 of the partition key
	part   uint64 // arena offset of the encoded partition key
	key    uint64 // arena offset of the sort key of the partition's row
	saved  uint64 // arena offset of the sort key of the entry checkpoints hold
	epoch  uint64 // the last chunk that touched the slot
	partN  uint32 // length of the partition key
	keyN   uint32 // length of the sort key
	savedN uint32 // length of the saved sort key; 0 for no entry held
	group  uint16 // the key group of the partition
	live   bool   // the slot holds a partition (not free)
}

// slotTable holds the partitions of the de-duplication fast path.
type slotTable struct {
	ids   aggstate.Slots
	slots aggstate.Column[slot]
	index probe.Index
	arena arena.Arena
	dead  int64    // bytes of the arena no slot refers to
	order []uint32 // scratch of compact
}

// compactMin is the fewest dead bytes that make a compaction worth it.
const compactMin = 4 << 20

// newSlotTable returns an empty table.
func newSlotTable() *slotTable {
	return &slotTable{}
}

// hashPart returns the hash a slot's partition key is indexed by.
func hashPart(pk []byte) uint64 { return xxh3.Hash(pk) }

// find returns the slot of the partition with key pk of hash h, or -1.
func (st *slotTable) find(h uint64, pk []byte) int32 {
	return st.index.Find(h, func(id int32) bool {
		s := st.slots.At(id)
		return s.hash == h && bytes.Equal(st.arena.At(s.part, s.partN), pk)
	})
}

// add creates the slot of the partition with key pk of hash h, whose row
// has sort key key, and returns its number. The slot's entry held is
// none; its epoch and group are the caller's to set.
func (st *slotTable) add(h uint64, pk, key []byte) int32 {
	id := st.ids.Alloc()
	st.slots.Grow(int(id) + 1)
	*st.slots.At(id) = slot{hash: h, part: st.arena.Add(pk), partN: uint32(len(pk)),
		key: st.arena.Add(key), keyN: uint32(len(key)), live: true}
	st.index.Insert(h, id)
	return id
}

// len returns the number of partitions held.
func (st *slotTable) len() int { return st.ids.Live() }

// high returns one more than the largest slot number in use.
func (st *slotTable) high() int32 { return int32(st.ids.High()) }

// at returns slot id; the pointer is valid until the next add.
func (st *slotTable) at(id int32) *slot { return st.slots.At(id) }

// partOf returns the partition key of s, a view of the arena valid until
// the next compaction.
func (st *slotTable) partOf(s *slot) string { return st.arena.String(s.part, s.partN) }

// keyOf returns the sort key of the row of s, a view of the arena.
func (st *slotTable) keyOf(s *slot) string { return st.arena.String(s.key, s.keyN) }

// savedOf returns the sort key of the entry held for s ("" for none), a
// view of the arena.
func (st *slotTable) savedOf(s *slot) string { return st.arena.String(s.saved, s.savedN) }

// sharesSaved reports whether the entry held for s is its row, the same
// bytes of the arena.
func sharesSaved(s *slot) bool { return s.savedN != 0 && s.saved == s.key }

// setKey replaces the row of s by one with sort key key. The old key's
// bytes become dead unless they are the entry held.
func (st *slotTable) setKey(s *slot, key []byte) {
	if !sharesSaved(s) {
		st.dead += int64(s.keyN)
	}
	s.key, s.keyN = st.arena.Add(key), uint32(len(key))
}

// setSaved makes the bytes at off (n of them; 0 for none) the entry held
// for s: either its row's key or bytes the table held as such before.
// The bytes of the previous entry held become dead unless they are the
// row's.
func (st *slotTable) setSaved(s *slot, off uint64, n uint32) {
	if s.savedN != 0 && s.saved != s.key {
		st.dead += int64(s.savedN)
	}
	s.saved, s.savedN = off, n
	if n != 0 && off != s.key {
		st.dead -= int64(n)
	}
}

// drop forgets the partition of slot id and frees its number.
func (st *slotTable) drop(id int32) {
	s := st.slots.At(id)
	st.index.Remove(s.hash, id)
	st.dead += int64(s.partN) + int64(s.keyN)
	if s.savedN != 0 && s.saved != s.key {
		st.dead += int64(s.savedN)
	}
	*s = slot{}
	st.ids.Free(id)
}

// bytes returns the memory of the table: its slots, index and arena.
func (st *slotTable) bytes() int64 {
	return st.slots.Bytes() + st.index.Bytes() + st.arena.Bytes()
}

// liveBytes returns the bytes of the arena that slots refer to.
func (st *slotTable) liveBytes() int64 { return st.arena.Used() - st.dead }

// maybeCompact compacts the arena when its dead bytes outnumber the live
// ones and compactMin. No view of the arena may be held.
func (st *slotTable) maybeCompact() {
	if st.dead >= compactMin && st.dead > st.liveBytes() {
		st.compact()
	}
}

// compact moves the bytes the slots refer to together and drops the
// dead ones (arena.Compact: a block at a time, reusing the blocks it
// empties); a key that is also the entry held is moved once. No view of
// the arena may be held.
func (st *slotTable) compact() {
	st.order = st.arena.Compact((*slotValues)(st), st.order)
	st.dead = 0
}

// slotValues lists the slots' bytes for a compaction (arena.Values):
// the tag of a value is its slot's number times four plus which of its
// bytes it is.
type slotValues slotTable

// The values of a slot, by tag.
const (
	valPart     = iota // the partition key
	valKey             // the row's sort key, not the entry held
	valKeySaved        // the row's sort key, which is the entry held too
	valSaved           // the entry held, other bytes than the row's key
	valsPerSlot        // tags are a slot's number times this, plus which
	valShift    = 2    // log2(valsPerSlot)
)

// maxSlots bounds the slot numbers a tag holds: 2^30 partitions, whose
// slots alone would take 56 GiB.
const maxSlots = 1 << (32 - valShift)

func (v *slotValues) Each(visit func(tag uint32)) {
	st := (*slotTable)(v)
	if st.high() > maxSlots {
		panic("topn: more partitions than a compaction's tags can number")
	}
	for id := range st.high() {
		s := st.slots.At(id)
		if !s.live {
			continue
		}
		t := uint32(id) << valShift
		visit(t | valPart)
		switch {
		case sharesSaved(s):
			visit(t | valKeySaved)
		case s.savedN != 0:
			visit(t | valKey)
			visit(t | valSaved)
		default:
			visit(t | valKey)
		}
	}
}

func (v *slotValues) Value(tag uint32) (uint64, uint32) {
	s := (*slotTable)(v).slots.At(int32(tag >> valShift))
	switch tag & (valsPerSlot - 1) {
	case valPart:
		return s.part, s.partN
	case valSaved:
		return s.saved, s.savedN
	}
	return s.key, s.keyN
}

func (v *slotValues) Moved(tag uint32, off uint64) {
	s := (*slotTable)(v).slots.At(int32(tag >> valShift))
	switch tag & (valsPerSlot - 1) {
	case valPart:
		s.part = off
	case valKey:
		s.key = off
	case valKeySaved:
		s.key, s.saved = off, off
	case valSaved:
		s.saved = off
	}
}
