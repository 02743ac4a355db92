package topn

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Checkpoints of the de-duplication fast path. Its entries are those of
// the general mode (state.go), one per partition: the entry key of the
// partition key and its row's sort key, valued by one copy. A snapshot
// costs a constant per partition changed since the previous one, with
// neither a sort nor a decoding: everything it needs is kept in the
// partition's slot.
//
//   - The key group: computed when the slot is created, with
//     exec.RowKeyGroups over the chunk's PARTITION BY columns that the
//     input was hashed on (Config.PartKeys), for all the chunk's rows at
//     once — exactly as the hash exchange before the operator routed the
//     row; a restored slot's is the group its
//     entry was read from.
//   - The entry held: the sort key the last snapshot wrote (or the
//     restore read), so that a snapshot deletes it when the row was
//     replaced since and puts the new one, and writes nothing for a row
//     replaced and replaced back.
//   - Whether it changed: a bit by slot number, and the slot appended to
//     a list the first time it changes after a snapshot. Until the first
//     snapshot or a restore the list stays empty: the first snapshot
//     writes every slot.
//
// A snapshot is written in steps (exec.DeferredSnapshotter; dedupsnap.go).

// dedupDelta is what the de-duplication fast path keeps for its
// snapshots beside its slots.
type dedupDelta struct {
	written bool     // a snapshot was taken or restored: changes are listed
	bits    []uint64 // by slot number: changed since the last snapshot
	dirty   []int32  // the slots changed since the last snapshot, each once
	err     error    // a failure to compute key groups, reported by Snapshot
	pend    dedupPending

	// Scratch of the chunk: the slots it created and the row of each, and
	// the key group of each of its rows.
	fresh  []int32
	rows   []int32
	groups []int
	hashes []uint64
}

// created records a slot created by row of the current chunk, whose key
// group slotGroups sets.
func (d *dedupDelta) created(id int32, row int) {
	d.fresh = append(d.fresh, id)
	d.rows = append(d.rows, int32(row))
}

// mark records a change of slot s, numbered id, when changes are listed.
func (d *dedupDelta) mark(id int32) {
	if d.written && bitset.Set(&d.bits, id) {
		d.dirty = append(d.dirty, id)
	}
}

// bytes estimates the memory of the delta, its pending snapshot and its
// scratch.
func (d *dedupDelta) bytes() int64 {
	return int64(cap(d.dirty)+cap(d.fresh)+cap(d.rows))*4 + int64(cap(d.bits)+cap(d.groups)+cap(d.hashes))*8 + d.pend.bytes()
}

// slotGroups sets the key group of every slot the chunk c created: the
// instance's first group without partitions, else the group
// exec.RowKeyGroups gives the row's PARTITION BY columns the input was
// hashed on. A failure (a
// column the exchange could not hash either) is kept for Snapshot to
// report, as a snapshot that decoded the keys would have: the chunk's
// output does not depend on it.
func (t *Operator) slotGroups(c exec.Chunk) {
	d := &t.dedup
	if len(d.fresh) == 0 {
		return
	}
	if len(t.cfg.Partition) == 0 {
		for _, id := range d.fresh {
			t.slots.at(id).group = uint16(t.env.KeyGroups.Lo)
		}
		return
	}
	ords := t.hashed
	cols := make([]arrow.Array, len(ords))
	for i, ord := range ords {
		cols[i] = c.Batch.Column(ord)
	}
	d.groups = vec.Resize(d.groups, c.NumRows())
	var err error
	if d.hashes, err = exec.RowKeyGroups(cols, d.hashes, d.groups); err != nil {
		if d.err == nil {
			d.err = err
		}
		return
	}
	for i, id := range d.fresh {
		t.slots.at(id).group = uint16(d.groups[d.rows[i]])
	}
}

// finishChunk forgets the chunk's created slots.
func (d *dedupDelta) finishChunk() {
	clear(d.fresh)
	d.fresh, d.rows = d.fresh[:0], d.rows[:0]
}

// writeSlots writes the changes of the slots numbered ids (writeSlot) and
// returns how many it wrote: all of them, or those before the first
// error. It reads them all before writing any (touchSlots).
func (t *Operator) writeSlots(w exec.StateWriter, ids []int32) (int, error) {
	t.snap.touched += t.slots.touchSlots(ids)
	for i, id := range ids {
		if err := t.writeSlot(w, t.slots.at(id)); err != nil {
			return i, err
		}
	}
	return len(ids), nil
}

// touchBatch is how many slots touchSlots reads ahead of their writing.
const touchBatch = 64

// touchSlots reads the slots numbered ids and the first bytes of their
// keys and returns a value depending on them. As agg's touchRows, it
// serves as a prefetch: the slots of a snapshot are spread over the
// table and their keys over the arena, and this loop without
// data-dependent branches lets the processor wait for many of their cache
// misses at once rather than one after the other.
func (st *slotTable) touchSlots(ids []int32) byte {
	var sum byte
	for _, id := range ids {
		s := st.slots.At(id)
		sum += firstByte(st.partOf(s)) + firstByte(st.keyOf(s)) + firstByte(st.savedOf(s))
	}
	return sum
}

// firstByte returns the first byte of s, or 0.
func firstByte(s string) byte {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// writeSlot writes the change of slot s since the entry held: a Delete of
// the entry (if any) and a Put of the row. A slot is listed only when its
// row changed, and a row is only ever replaced by a smaller one, so the
// row differs from the entry held: there is no need to compare them. The
// row becomes the entry held, sharing its bytes.
func (t *Operator) writeSlot(w exec.StateWriter, s *slot) error {
	sn, st := &t.snap, t.slots
	g := int(s.group)
	part := st.partOf(s)
	if s.savedN != 0 {
		sn.key = ordtree.AppendEntryKey(sn.key[:0], part, st.savedOf(s))
		if err := w.Delete(g, sn.key); err != nil {
			return err
		}
	}
	sn.key = ordtree.AppendEntryKey(sn.key[:0], part, st.keyOf(s))
	sn.value = ordtree.AppendEntryValue(sn.value[:0], 1)
	if err := w.Put(g, sn.key, sn.value); err != nil {
		return err
	}
	st.setSaved(s, s.key, s.keyN)
	return nil
}
