package rowstore

import (
	"encoding/binary"
	"errors"

	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/paged"
)

// Changes tracks, for an operator that checkpoints a Store one entry per
// row, which rows changed since the last snapshot and which entries the
// checkpoint holds that must be deleted.
//
// A row's entry key is a tag byte (which of the operator's stores holds
// the row), a key the operator chooses (what groups its rows: a join's
// join key), and the row's identity, 8 bytes big-endian (AppendEntryKey,
// SplitEntryKey). A row gets an identity the first time a snapshot writes
// it (Persist) or when it is restored (Restored), together with the key
// group its entry is in; both are kept by row id until the row is
// removed. The row ids of the store are not identities: they are reused,
// and a restore hands out new ones. A new identity is made of the epoch
// of the snapshot that writes the row and the row's id (Identity): no two
// rows held at once share an id, a row removed and its id taken again
// before that snapshot was never written, and every later snapshot —
// after a restore too, since epochs go on from the last committed one —
// has a greater epoch, so identities never repeat among the entries of a
// checkpoint; and a row's identity does not depend on the order in which
// a snapshot written in steps reaches its rows (Pending).
//
// The operator marks a row when it is added or what its entry holds
// changes (Mark: a bit per row and an append to a list, once per row and
// snapshot), and reports its removal (Removed), which records a deletion
// only if the checkpoint holds an entry of the row. Until a snapshot has
// written rows, no row has an identity and no deletion is ever recorded.
//
// Until its first Reset (the end of a first snapshot) or Track (a
// restore), Changes tracks nothing: every row held is changed, so the
// operator's first snapshot writes all of them (Tracking reports it), and
// a query that never checkpoints keeps no list of every row it ever added.
type Changes struct {
	tracking bool
	dirty    []uint64 // a bit per row id: changed since the last snapshot
	gone     []uint64 // a bit per row id: removed since it was marked
	ids      []int32  // the dirty row ids, each once
	// By row id, in pages (a snapshot's rows grow them without copying
	// what they hold): the identity of the row's entry (0: none), and its
	// key group.
	ident paged.Vec[uint64]
	group paged.Vec[uint16]
	// The entries to delete: keys concatenated, the end of each, its group.
	delKeys   []byte
	delEnds   []int
	delGroups []int
}

// identLen is the length of a row's identity at the end of its entry key.
const identLen = 8

// errEntryKey is returned for an entry key too short to hold a tag and an
// identity, or whose identity is 0.
var errEntryKey = errors.New("rowstore: entry key without a row identity")

// AppendEntryKey appends the entry key of the row of identity ident, kept
// under key in the store tagged tag, to buf.
func AppendEntryKey[K ~string | ~[]byte](buf []byte, tag byte, key K, ident uint64) []byte {
	return binary.BigEndian.AppendUint64(append(append(buf, tag), key...), ident)
}

// SplitEntryKey splits an entry key AppendEntryKey wrote.
func SplitEntryKey(entry []byte) (tag byte, key []byte, ident uint64, err error) {
	if len(entry) < 1+identLen {
		return 0, nil, 0, errEntryKey
	}
	n := len(entry) - identLen
	ident = binary.BigEndian.Uint64(entry[n:])
	if ident == 0 {
		return 0, nil, 0, errEntryKey
	}
	return entry[0], entry[1:n], ident, nil
}

// Mark records that row id was added or that what its entry holds
// changed.
func (c *Changes) Mark(id int32) {
	if !c.tracking {
		return
	}
	if bitset.Set(&c.dirty, id) {
		c.ids = append(c.ids, id)
	}
	bitset.Clear(c.gone, id)
}

// Held reports whether the checkpoint holds an entry of row id: only then
// does Removed read the row's key.
func (c *Changes) Held(id int32) bool { return int(id) < c.ident.Cap() && c.ident.At(id) != 0 }

// Removed records that row id, kept under key in the store tagged tag, was
// removed. If the checkpoint holds an entry of the row (Held), its
// deletion is recorded; otherwise key is not read.
func (c *Changes) Removed(id int32, tag byte, key []byte) {
	if !c.tracking {
		return // no entry is held, and every row held is changed
	}
	if bitset.Has(c.dirty, id) {
		bitset.Set(&c.gone, id)
	}
	if !c.Held(id) {
		return
	}
	c.delKeys = AppendEntryKey(c.delKeys, tag, key, c.ident.At(id))
	c.delEnds = append(c.delEnds, len(c.delKeys))
	c.delGroups = append(c.delGroups, int(c.group.At(id)))
	c.ident.Set(id, 0)
}

// Clean reports whether nothing changed since the last Reset: no row
// marked, no deletion recorded. Before changes are tracked, every row
// held is changed, and it reports false.
func (c *Changes) Clean() bool { return c.tracking && len(c.ids) == 0 && len(c.delEnds) == 0 }

// Tracking reports whether changes are tracked: after a Reset or Track.
// Before, Dirty lists nothing, and every row held counts as changed.
func (c *Changes) Tracking() bool { return c.tracking }

// Track starts tracking changes, as after a snapshot: a restore's rows are
// the checkpoint's, and only what changes after them is written next.
func (c *Changes) Track() { c.tracking = true }

// Drop records that the checkpoint holds no entry of row id that this
// instance must delete: the entry is another instance's from now on (a
// rescale moved its key group away; the row must then not be dirty), or
// the identity Begin gave the row was not used (another instance writes
// the row, a replica of it).
func (c *Changes) Drop(id int32) {
	if int(id) < c.ident.Cap() {
		c.ident.Set(id, 0)
	}
}

// Dirty appends to ids the rows marked since the last Reset that are
// still held (none before changes are tracked: the caller then writes
// every row it holds).
func (c *Changes) Dirty(ids []int32) []int32 {
	for _, id := range c.ids {
		if !bitset.Has(c.gone, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// Deletions calls fn with the group and key of every entry whose row was
// removed since the last Reset.
func (c *Changes) Deletions(fn func(group int, key []byte) error) error {
	start := 0
	for i, end := range c.delEnds {
		if err := fn(c.delGroups[i], c.delKeys[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// Reserve makes room for the identities and groups of row ids below n in
// one step.
func (c *Changes) Reserve(n int) {
	c.ident.Grow(n)
	c.group.Grow(n)
}

// grow makes room for row id's identity and group.
func (c *Changes) grow(id int32) {
	if int(id) >= c.ident.Cap() {
		c.Reserve(int(id) + 1)
	}
}

// Identity returns the identity a snapshot of epoch gives row id, whose
// entry it writes first.
func Identity(epoch uint64, id int32) uint64 { return (epoch+1)<<31 | uint64(id) }

// Persist returns the identity of row id, whose entry the snapshot of
// epoch writes in key group group, handing one out the first time. The
// row's entry stays in that group until it is removed.
func (c *Changes) Persist(id int32, group int, epoch uint64) uint64 {
	c.grow(id)
	ident := c.ident.At(id)
	if ident == 0 {
		ident = Identity(epoch, id)
		c.ident.Set(id, ident)
	}
	c.group.Set(id, uint16(group))
	return ident
}

// Restored records that row id was restored from the entry of identity
// ident in key group group (held is false for an entry another instance
// writes, which this one only reads).
func (c *Changes) Restored(id int32, group int, ident uint64, held bool) {
	if !held {
		return
	}
	c.grow(id)
	c.ident.Set(id, ident)
	c.group.Set(id, uint16(group))
}

// Reset forgets the changes: the next snapshot starts from here, and
// changes are tracked from now on.
func (c *Changes) Reset() {
	c.tracking = true
	for _, id := range c.ids {
		bitset.Clear(c.dirty, id)
		bitset.Clear(c.gone, id)
	}
	c.ids = c.ids[:0]
	c.delKeys, c.delEnds, c.delGroups = c.delKeys[:0], c.delEnds[:0], c.delGroups[:0]
}

// Bytes estimates the memory of the tracking.
func (c *Changes) Bytes() int64 {
	return 8*int64(cap(c.dirty)+cap(c.gone)+len(c.delEnds)+len(c.delGroups)) + c.ident.Bytes() + c.group.Bytes() +
		4*int64(cap(c.ids)) + int64(cap(c.delKeys))
}
