package agg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/internal/kvlog"
)

// Snapshots written a part at a time (exec.DeferredSnapshotter), so that
// a checkpoint pauses the aggregate for the time it takes to swap a few
// slices, not to encode every dirty group.
//
// At the barrier BeginSnapshot swaps the delta out into the pending
// snapshot — the dirty slots' bits and list, the keys of the groups
// deleted — and the next delta starts empty (its bits are those the
// previous snapshot cleared). SnapshotStep then writes the pending entries
// a budget at a time: the deletions first, so that a group deleted and
// created again before the barrier is put after its deletion (as a whole
// snapshot always wrote them); then the groups saved by copy-on-write;
// then the pending slots not touched since, each from its slot.
//
// Copy-on-write. Until the last step, whatever is about to change or free
// a group first saves its slot (save): a slot whose pending bit is set
// leaves the pending ones, and if it held a group at the barrier, its
// entry key and value are copied aside for a later step. apply saves the
// slots a batch touches before it changes them, closeWindows the groups a
// watermark closes before it computes their results (which may change
// their state: a sketch caches its estimate), and freeSlot the slot it
// frees (a batch, the state TTL). A slot
// freed before the barrier and taken by a new group after it holds no
// group when saved (its arena row is clear until apply changes it), so it
// is only taken off. Every entry is thus written once, with its value at
// the barrier, and a batch pays a bit test per group it touches, plus a
// copy of its entry for each pending group: no store write.

// pendingSnap is a snapshot begun and not all written: the delta as of
// the barrier, and the entries saved since by copy-on-write.
type pendingSnap struct {
	w   exec.StateWriter // where the snapshot goes; nil when none is pending
	err error            // a failed save, returned by the next step

	bits  []uint64 // by slot: its group is still to be written from the slot
	slots []int32  // the slots dirty at the barrier
	next  int      // slots[next:] are still to be looked at
	// byBits is set when enough slots are pending that the steps find them
	// in bits, in slot order, reading the arena and the keys in order,
	// rather than in slots, in the order they changed (a cache miss each).
	byBits bool
	word   int // bits[word:] are still to be looked at, when byBits

	delKeys []byte // the entry keys of the groups deleted before the barrier
	delEnds []int
	nextDel int // delEnds[nextDel:] are still to be written

	wm      int64 // the watermark to write, if writeWM
	writeWM bool

	// The groups saved by copy-on-write: entry keys and values as of the
	// barrier, in a log, whose writes are never copied again as it grows
	// (growing slices of them copied tens of megabytes inside a batch).
	saved     kvlog.Log
	nextSaved int32 // the saved entries before it were written

	// bg is set while a writer goroutine writes the snapshot
	// (snapshot_background.go); steps then write nothing, and saves go to
	// rows, for the writer to encode.
	bg   *bgSnap
	rows rowLog
	own  []uint64 // the last writer's own bits, kept for the next one's

	batch    []int32 // scratch: the slots a step writes
	key, val []byte  // scratch: an entry being saved
}

// scanShare bounds the slots a step looks at, in multiples of its budget,
// when most of them were saved already or freed: the step stays short.
// A step of a snapshot found by bits looks at up to scanShare words of
// bits per entry of its budget.
const scanShare = 8

// bitsDensity: a pending snapshot is found by bits, in slot order, when at
// least one slot in bitsDensity is pending (one per 8 words of bits). A
// variable for tests.
var bitsDensity = 512

// slotsLeft reports whether pending slots may remain to be looked at.
func (p *pendingSnap) slotsLeft() bool {
	if p.byBits {
		return p.word < len(p.bits)
	}
	return p.next < len(p.slots)
}

// nextSlots appends to p.batch the next pending slots, clearing their
// bits, until it holds budget of them or scan slots (words of bits) were
// looked at; the caller writes those whose slot holds a group.
func (p *pendingSnap) nextSlots(budget, scan int) {
	if !p.byBits {
		for scanned := 0; p.next < len(p.slots) && len(p.batch) < budget && scanned < scan; scanned++ {
			s := p.slots[p.next]
			p.next++
			w, bit := s>>6, uint64(1)<<(s&63)
			if p.bits[w]&bit != 0 {
				p.bits[w] &^= bit
				p.batch = append(p.batch, s)
			}
		}
		return
	}
	for scanned := 0; p.word < len(p.bits) && len(p.batch) < budget && scanned < scan; scanned++ {
		w := p.bits[p.word]
		for w != 0 && len(p.batch) < budget {
			b := bits.TrailingZeros64(w)
			w &^= 1 << b
			p.batch = append(p.batch, int32(p.word<<6+b))
		}
		if p.bits[p.word] = w; w == 0 {
			p.word++
		}
	}
}

// Snapshot implements exec.Stateful: it writes the groups changed since
// the last snapshot at once (a Put for each live dirty group, a Delete
// for each group deleted, and the watermark of a windowed aggregate if it
// advanced), after the rest of a snapshot begun before.
func (h *HashAgg) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	return exec.SnapshotAtOnce(ctx, h, epoch, w)
}

// BeginSnapshot implements exec.DeferredSnapshotter: it finishes a
// snapshot begun before, then takes the delta as the pending snapshot and
// starts a new one, in time independent of the number of dirty groups. It
// reports whether anything is to be written.
//
// When the state allows it, the snapshot is then written by a goroutine
// of its own (snapshot_background.go), and SnapshotStep only finishes it.
func (h *HashAgg) BeginSnapshot(ctx context.Context, _ uint64, w exec.StateWriter) (bool, error) {
	if h.keys == nil {
		return false, errors.New("hash aggregate: Snapshot before Open")
	}
	// A snapshot finished here in steps writes to w's buffer, which the
	// runtime flushes after this returns: a writer goroutine, which
	// flushes on its own, must not start ahead of it.
	stepped := h.pend.w != nil && h.pend.bg == nil
	if err := exec.FinishSnapshot(ctx, h); err != nil {
		return false, err
	}
	d, p := &h.delta, &h.pend
	p.bits, d.bits = d.bits, p.bits
	p.slots, d.slots = d.slots, p.slots[:0]
	p.delKeys, d.delKeys = d.delKeys, p.delKeys[:0]
	p.delEnds, d.delEnds = d.delEnds, p.delEnds[:0]
	d.grow(h.arena.Len())
	p.next, p.word, p.nextDel, p.nextSaved = 0, 0, 0, 0
	p.byBits = len(p.slots)*bitsDensity >= len(p.bits)
	p.saved.Reset()
	p.rows.reset(h.arena.Stride())
	if c := h.close; c != nil && c.wm != d.savedWM {
		p.wm, p.writeWM, d.savedWM = c.wm, true, c.wm
	}
	d.written = true
	if len(p.slots) == 0 && len(p.delEnds) == 0 && !p.writeWM {
		return false, nil
	}
	p.w = w
	if f, accs, ok := h.backgroundFor(w); ok && !stepped {
		h.startBackground(ctx, f, accs)
	}
	return true, nil
}

// SnapshotStep implements exec.DeferredSnapshotter: it writes at most
// budget of the pending snapshot's entries (the watermark's, written
// first, not counted) and reports whether none remain. While a writer
// goroutine writes the snapshot it writes nothing, and once the writer is
// done it reports the snapshot finished.
func (h *HashAgg) SnapshotStep(_ context.Context, budget int) (bool, error) {
	p := &h.pend
	if p.w == nil {
		return true, nil
	}
	if p.err != nil {
		return false, p.err
	}
	if p.bg != nil {
		done, err := h.joinBackground()
		if !done || err != nil {
			p.err = err
			return false, err
		}
		p.w = nil
		return true, nil
	}
	budget = max(budget, 1)
	if p.writeWM {
		if err := h.writeWatermark(); err != nil {
			return false, err
		}
		p.writeWM = false
	}
	n, err := h.writeDeletes(budget)
	if err == nil && n < budget {
		var m int
		m, err = h.writeSaved(budget - n)
		n += m
	}
	if err == nil && n < budget {
		_, err = h.writeSlots(budget - n)
	}
	if err != nil {
		return false, fmt.Errorf("hash aggregate: snapshot: %w", err)
	}
	if p.nextDel < len(p.delEnds) || int(p.nextSaved) < p.saved.Len() || p.slotsLeft() {
		return false, nil
	}
	p.w = nil
	return true, nil
}

// writeWatermark puts the pending watermark in every key group the
// instance owns.
func (h *HashAgg) writeWatermark() error {
	d, p := &h.delta, &h.pend
	d.value = binary.AppendVarint(d.value[:0], p.wm)
	for g := h.env.KeyGroups.Lo; g < h.env.KeyGroups.Hi; g++ {
		if err := p.w.Put(g, []byte(watermarkKey), d.value); err != nil {
			return err
		}
	}
	return nil
}

// writeDeletes writes the Deletes of at most budget of the groups deleted
// before the barrier, and returns how many it wrote.
func (h *HashAgg) writeDeletes(budget int) (int, error) {
	p := &h.pend
	k := min(budget, len(p.delEnds)-p.nextDel)
	if k == 0 {
		return 0, nil
	}
	start := 0
	if p.nextDel > 0 {
		start = p.delEnds[p.nextDel-1]
	}
	ends := p.delEnds[p.nextDel : p.nextDel+k]
	if err := h.keyGroups(p.delKeys, start, ends); err != nil {
		return 0, err
	}
	for i, end := range ends {
		if err := p.w.Delete(h.delta.groups[i], p.delKeys[start:end]); err != nil {
			return i, err
		}
		start = end
	}
	p.nextDel += k
	return k, nil
}

// writeSaved writes the Puts of at most budget of the groups saved by
// copy-on-write, and returns how many it wrote.
func (h *HashAgg) writeSaved(budget int) (int, error) {
	d, p := &h.delta, &h.pend
	k := min(budget, p.saved.Len()-int(p.nextSaved))
	if k == 0 {
		return 0, nil
	}
	d.keys, d.ends = d.keys[:0], d.ends[:0]
	for i := range int32(k) {
		d.keys = append(d.keys, p.saved.Key(p.nextSaved+i)...)
		d.ends = append(d.ends, len(d.keys))
	}
	if err := h.keyGroups(d.keys, 0, d.ends); err != nil {
		return 0, err
	}
	for i := range int32(k) {
		val, _ := p.saved.Val(p.nextSaved + i)
		if err := p.w.Put(d.groups[i], p.saved.Key(p.nextSaved+i), val); err != nil {
			return int(i), err
		}
	}
	p.nextSaved += int32(k)
	return k, nil
}

// writeSlots writes the Puts of at most budget of the pending slots'
// groups, from their slots, and returns how many it wrote. A slot that
// holds no group (freed before the barrier) is passed over, as is one
// saved already.
func (h *HashAgg) writeSlots(budget int) (int, error) {
	d, p := &h.delta, &h.pend
	p.batch, d.keys, d.ends = p.batch[:0], d.keys[:0], d.ends[:0]
	scan := math.MaxInt
	if budget < math.MaxInt/scanShare {
		scan = scanShare * budget
	}
	p.nextSlots(budget, scan)
	live := p.batch[:0]
	for _, s := range p.batch {
		if h.live(s) {
			live = append(live, s)
			d.keys = h.keys.appendEntryKey(d.keys, s)
			d.ends = append(d.ends, len(d.keys))
		}
	}
	if p.batch = live; len(p.batch) == 0 {
		return 0, nil
	}
	if err := h.keyGroups(d.keys, 0, d.ends); err != nil {
		return 0, err
	}
	start := 0
	for i, s := range p.batch {
		val, err := h.appendGroup(d.value[:0], s)
		d.value = val
		if err != nil {
			return i, err
		}
		if err := p.w.Put(d.groups[i], d.keys[start:d.ends[i]], val); err != nil {
			return i, err
		}
		start = d.ends[i]
	}
	return len(p.batch), nil
}

// saveTouched saves, before they change, the pending groups among slots;
// rows[j], if rows is not nil, is a row of the current batch in the group
// of slots[j]; arena[j], if arena is not nil, is the arena row of
// slots[j].
//
// It goes a block of saveBlock slots at a time: the block's arena rows
// and its words of pending bits are read in one pass, their misses
// overlapped, then the block's slots are saved from the cache. Reading
// every row of a batch first (touchRows) and saving after left the first
// rows evicted by the time their saves came, while a writer goroutine
// streamed the arena through the shared cache: a profile put 78 % of
// save's time at its first read of the row.
func (h *HashAgg) saveTouched(slots, rows []int32, arena [][]uint64) {
	h.lockSaves()
	defer h.unlockSaves()
	for lo := 0; lo < len(slots); lo += saveBlock {
		hi := min(lo+saveBlock, len(slots))
		if arena != nil {
			h.sink += touchRows(arena[lo:hi])
		}
		if b := h.pend.bg; b != nil {
			h.sink += b.touch(slots[lo:hi])
		}
		for j := lo; j < hi; j++ {
			row := int32(-1)
			if rows != nil {
				row = rows[j]
			}
			h.save(slots[j], row)
		}
	}
}

// saveBlock is how many slots saveTouched reads ahead of saving them:
// enough for the processor to wait for many misses at once, few enough
// for their rows to stay in its own cache.
const saveBlock = 64

// save takes slot s off the pending snapshot, if it is on it, copying its
// group's entry as it is now — as at the barrier, since whatever changed
// it since would have saved it first — for a later step to write. row,
// unless negative, is a row of the current batch in the group, whose
// integer key is read from the row (in cache) rather than the group
// table. The caller checks that a snapshot is pending and, while a writer
// goroutine runs, holds its mu.
func (h *HashAgg) save(s, row int32) {
	p := &h.pend
	w, bit := int(s>>6), uint64(1)<<(s&63)
	switch {
	case w >= len(p.bits):
		return
	case p.bg != nil:
		if !p.bg.claim(w, bit) {
			return
		}
	case p.bits[w]&bit == 0:
		return
	default:
		p.bits[w] &^= bit
	}
	if !h.live(s) {
		return
	}
	if p.bg != nil {
		if h.keys.mode == keysInt {
			k, null := h.keys.intKey(s, row)
			p.rows.add(h.arena.Row(s), k, null)
		} else {
			p.rows.addKey(h.arena.Row(s), h.keys.bytes.Key(s))
		}
		return
	}
	val, err := h.appendGroup(p.val[:0], s)
	p.val = val
	if err != nil {
		if p.err == nil {
			p.err = fmt.Errorf("hash aggregate: snapshot: %w", err)
		}
		return
	}
	if row >= 0 {
		p.key = h.keys.appendRowEntryKey(p.key[:0], s, row)
	} else {
		p.key = h.keys.appendEntryKey(p.key[:0], s)
	}
	p.saved.Append(nil, p.key, p.val, false)
}

// bytes estimates the memory of the pending snapshot.
func (p *pendingSnap) bytes() int64 {
	return int64(cap(p.bits)+cap(p.own))*8 + int64(cap(p.slots))*4 + int64(cap(p.delKeys)) + int64(cap(p.delEnds))*8 +
		p.saved.Bytes() + p.rows.bytes() + int64(cap(p.batch))*4 + int64(cap(p.key)+cap(p.val))
}
