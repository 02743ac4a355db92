package topn

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/bitset"
	"github.com/eddysql/eddy/exec/internal/cow"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// De-duplication's snapshots written a part at a time
// (exec.DeferredSnapshotter), as the hash aggregate's are, so that a
// checkpoint pauses the operator for the time it takes to swap two
// slices, not to encode every partition changed since the last one (at
// a million partitions a second, a few hundred milliseconds).
//
// At the barrier BeginSnapshot swaps the delta out — the bits and the
// list of the slots changed — and the next delta starts empty (its bits
// are those the last snapshot cleared); the first snapshot takes every
// slot. SnapshotStep then writes a budget of entries at a time: first
// those saved by copy-on-write, then the pending slots not touched since,
// each from its slot (writeSlot).
//
// Copy-on-write. Until the last step, a chunk about to replace the row of
// a pending slot first writes the slot's change aside (saveSlot: the
// Delete of the entry held and the Put of the row, encoded as writeSlot
// writes them, and the row becomes the entry held), and takes the slot
// off the pending ones. A row is only ever replaced, never dropped, while
// the operator runs: drops come with rescales (dropGroups), which start
// from a written snapshot, so no slot number is freed, nor taken again by
// a slot created after the barrier, while a snapshot is pending; nothing
// else needs saving.

// dedupPending is a snapshot begun and not all written.
type dedupPending struct {
	w    exec.StateWriter // where the snapshot goes; nil when none is pending
	bits []uint64         // by slot number: its change is still to be written from the slot
	ids  []int32          // the slots changed before the barrier (unless all)
	all  bool             // the first snapshot: every slot numbered below high
	high int32
	next int // ids[next:], or the slots numbered next to high, are still to be looked at

	// The changes saved by copy-on-write (the Delete of the entry a slot
	// held and the Put of its row), and saveSlot's scratch.
	saved cow.Entries
	key   []byte

	batch []int32 // scratch: the slots a step writes
}

// bytes estimates the memory of the pending snapshot.
func (p *dedupPending) bytes() int64 {
	return int64(cap(p.bits))*8 + int64(cap(p.ids)+cap(p.batch))*4 + p.saved.Bytes() + int64(cap(p.key))
}

var _ exec.DeferredSnapshotter = (*Operator)(nil)

// BeginSnapshot implements exec.DeferredSnapshotter. In de-duplication it
// finishes a snapshot begun before, then takes the slots changed since as
// the pending snapshot, in time independent of their number, and reports
// whether any are; in the general mode it takes the list of rows changed
// (topsnap.go).
func (t *Operator) BeginSnapshot(ctx context.Context, epoch uint64, w exec.StateWriter) (bool, error) {
	if t.builders == nil {
		return false, errors.New("top-n: Snapshot before Open")
	}
	if t.slots == nil {
		return t.beginTop(ctx, w)
	}
	if err := exec.FinishSnapshot(ctx, t); err != nil {
		return false, err
	}
	d := &t.dedup
	if d.err != nil {
		return false, fmt.Errorf("top-n: snapshot: %w", d.err)
	}
	p := &d.pend
	p.next = 0
	p.saved.Reset()
	if !d.written {
		// Every slot, the first time: their bits set a word at a time.
		p.all, p.high = true, t.slots.high()
		p.bits = bitset.Fill(p.bits, p.high)
		d.written = true
	} else {
		p.all = false
		p.bits, d.bits = d.bits, p.bits
		p.ids, d.dirty = d.dirty, p.ids[:0]
	}
	if (p.all && p.high == 0) || (!p.all && len(p.ids) == 0) {
		return false, nil
	}
	p.w = w
	t.updateMetrics()
	return true, nil
}

// SnapshotStep implements exec.DeferredSnapshotter: it writes at most
// about budget of the pending snapshot's changes (in de-duplication a
// slot's Delete and Put count as one) and reports whether none remain.
func (t *Operator) SnapshotStep(_ context.Context, budget int) (bool, error) {
	if t.slots == nil {
		return t.topStep(budget)
	}
	p := &t.dedup.pend
	if p.w == nil {
		return true, nil
	}
	budget = max(budget, 1)
	n, err := p.saved.Write(p.w, budget)
	if err == nil && n < budget {
		err = t.writePending(budget - n)
	}
	if err != nil {
		return false, fmt.Errorf("top-n: snapshot: %w", err)
	}
	if !p.saved.Done() || p.remaining() {
		return false, nil
	}
	p.w = nil
	t.updateMetrics()
	return true, nil
}

// remaining reports whether pending slots are still to be looked at.
func (p *dedupPending) remaining() bool {
	if p.all {
		return p.next < int(p.high)
	}
	return p.next < len(p.ids)
}

// writePending writes the changes of at most budget pending slots from
// the slots, passing over those saved already or not live. It looks at
// no more than scanShare times budget slots, so that a step stays short
// when most were saved.
func (t *Operator) writePending(budget int) error {
	p, st := &t.dedup.pend, t.slots
	scan := math.MaxInt
	if budget < math.MaxInt/scanShare {
		scan = scanShare * budget
	}
	for scanned := 0; p.remaining() && budget > 0 && scan > 0; {
		p.batch = p.batch[:0]
		for len(p.batch) < min(budget, touchBatch) && scanned < scan && p.remaining() {
			var id int32
			if p.all {
				id = int32(p.next)
			} else {
				id = p.ids[p.next]
			}
			p.next++
			scanned++
			if !bitset.Has(p.bits, id) {
				continue
			}
			bitset.Clear(p.bits, id)
			if st.at(id).live {
				p.batch = append(p.batch, id)
			}
		}
		if len(p.batch) == 0 {
			if scanned >= scan {
				break
			}
			continue
		}
		if _, err := t.writeSlots(p.w, p.batch); err != nil {
			return err
		}
		budget -= len(p.batch)
	}
	return nil
}

// scanShare bounds the slots a step looks at, in multiples of its budget.
const scanShare = 8

// saveSlot writes the change of pending slot s, numbered id, aside, as
// writeSlot would write it, for a later step, and takes it off the
// pending ones: the chunk is about to replace its row.
func (t *Operator) saveSlot(s *slot, id int32) {
	p, st := &t.dedup.pend, t.slots
	if !bitset.Has(p.bits, id) {
		return
	}
	bitset.Clear(p.bits, id)
	part := st.partOf(s)
	if s.savedN != 0 {
		p.key = ordtree.AppendEntryKey(p.key[:0], part, st.savedOf(s))
		p.saved.Delete(int(s.group), p.key)
	}
	p.key = ordtree.AppendEntryKey(p.key[:0], part, st.keyOf(s))
	p.saved.Put(int(s.group), p.key, oneCopy)
	st.setSaved(s, s.key, s.keyN)
}

// oneCopy is the entry value of a de-duplicated partition's row.
var oneCopy = ordtree.AppendEntryValue(nil, 1)
