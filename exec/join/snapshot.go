package join

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/cow"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/rowstore"
)

// Snapshots written in steps (exec.DeferredSnapshotter), so that a
// checkpoint holds the join's input for the time it takes to list the
// rows that changed, not to encode and write them: a join keeps every row
// of its inputs, and a second of input can change millions.
//
// At the barrier BeginSnapshot writes what is small or rare — the entries
// a relayout moved, a lookup join's waiting stream rows, the meta entries
// — and takes each side's changes as its pending snapshot
// (rowstore.Changes.Begin, in constant time: the rows changed and the
// deletions recorded; a row's identity is made of the epoch and its id
// when its entry is written). SnapshotStep writes the rest a budget
// at a time: the deletions, then the entries saved by copy-on-write, then
// each side's pending rows not saved, from the row store.
//
// Copy-on-write. A row's entry holds the row, which never changes, and on
// a counted side its match count, which does; and the row may be removed
// (a retraction, the watermark, the state TTL). So before a pending row's
// match count changes (apply) or the row is removed (side.forget), its
// entry is encoded as it is, as at the barrier, and kept aside for a
// step (save); the row is taken off the pending ones. Its removal then
// records the deletion of that entry for the next snapshot, as for any
// row a checkpoint holds. A batch pays a bit test per counted match and
// per removal, and an encoding per pending row it changes; no store write.
//
// A replicated row of a broadcast join whose key group another instance
// owns is not written by this one: when its turn comes (a step or a
// save), the identity Begin gave it is dropped, so that its removal
// records no deletion.

// pendingSnap is a snapshot begun and not all written: the rows still to
// write are in each side's rowstore.Pending, the entries saved by
// copy-on-write here.
type pendingSnap struct {
	w    exec.StateWriter // where the snapshot goes; nil when none is pending
	side int              // the side whose pending rows the steps write

	saved cow.Entries // the entries saved by copy-on-write, as of the barrier

	key, entry, value []byte  // scratch of save
	batch             []int32 // scratch of a step: the rows it writes
}

// scanShare bounds the pending rows a step looks at, in multiples of its
// budget, when most of them were saved already: the step stays short.
const scanShare = 8

var _ exec.DeferredSnapshotter = (*HashJoin)(nil)

// Snapshot implements exec.Stateful: it writes the rows added, changed and
// removed since the last snapshot, and the meta entries that changed, at
// once, after the rest of a snapshot begun before.
func (j *HashJoin) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	return exec.SnapshotAtOnce(ctx, j, epoch, w)
}

// BeginSnapshot implements exec.DeferredSnapshotter: it finishes a
// snapshot begun before, writes the moved entries, a lookup join's
// waiting rows and the meta entries that changed, and takes the sides'
// changes as the pending snapshot, in time that follows the rows that
// changed. It reports whether anything is left to write.
func (j *HashJoin) BeginSnapshot(ctx context.Context, epoch uint64, w exec.StateWriter) (bool, error) {
	if j.env == nil {
		return false, errors.New("hash join: Snapshot before Open")
	}
	if err := exec.FinishSnapshot(ctx, j); err != nil {
		return false, err
	}
	ck := &j.ck
	if err := ck.writeMoves(w); err != nil {
		return false, err
	}
	pending := false
	for _, s := range j.sides {
		var all []int32
		if !s.changes.Tracking() {
			// The first snapshot: every row held.
			all = ck.ids[:0]
			for b := range s.nbuckets {
				all = s.appendRows(b, all)
			}
			ck.ids = all
		}
		s.changes.Begin(&s.pend, epoch, all)
		pending = pending || !s.pend.Done()
	}
	if err := j.snapshotPending(w); err != nil {
		return false, err
	}
	if err := j.writeMeta(w); err != nil {
		return false, err
	}
	if !pending {
		return false, nil
	}
	p := &j.snap
	p.w, p.side = w, 0
	p.saved.Reset()
	return true, nil
}

// writeMeta writes a broadcast join's range entry, once, and a windowed
// join's watermark in every key group it owns when it advanced.
func (j *HashJoin) writeMeta(w exec.StateWriter) error {
	ck := &j.ck
	r := j.env.KeyGroups
	if j.cfg.Broadcast && !j.cfg.Lookup && !ck.rangeSaved {
		ck.value = binary.AppendUvarint(binary.AppendUvarint(ck.value[:0], uint64(r.Lo)), uint64(r.Hi))
		if err := w.Put(r.Lo, []byte{tagMeta, metaRange}, ck.value); err != nil {
			return err
		}
		ck.rangeSaved = true
	}
	if j.cfg.Windowed && ck.wm != ck.savedWM {
		ck.value = binary.AppendVarint(ck.value[:0], ck.wm)
		for g := r.Lo; g < r.Hi; g++ {
			if err := w.Put(g, []byte{tagMeta, metaWatermark}, ck.value); err != nil {
				return err
			}
		}
		ck.savedWM = ck.wm
	}
	return nil
}

// SnapshotStep implements exec.DeferredSnapshotter: it writes at most
// budget of the pending snapshot's entries and reports whether none
// remain.
func (j *HashJoin) SnapshotStep(_ context.Context, budget int) (bool, error) {
	p := &j.snap
	if p.w == nil {
		return true, nil
	}
	n := 0
	budget = max(budget, 1)
	for _, s := range j.sides {
		k, err := s.pend.Deletions(budget-n, p.w.Delete)
		n += k
		if err != nil {
			return false, fmt.Errorf("hash join: snapshot: %w", err)
		}
	}
	if n < budget {
		k, err := p.saved.Write(p.w, budget-n)
		n += k
		if err != nil {
			return false, fmt.Errorf("hash join: snapshot: %w", err)
		}
	}
	for n < budget && p.side < len(j.sides) {
		s := j.sides[p.side]
		k, err := j.writeRows(p.side, s, budget-n)
		n += k
		if err != nil {
			return false, fmt.Errorf("hash join: snapshot: %w", err)
		}
		if !s.pend.RowsDone() {
			break // the budget, or the rows a step looks at, spent
		}
		p.side++
	}
	if p.side < len(j.sides) || !p.saved.Done() || !j.sides[0].pend.Done() || !j.sides[1].pend.Done() {
		return false, nil
	}
	p.w = nil
	return true, nil
}

// writeRows writes the entries of at most n of side s's (input in's)
// pending rows, from the row store, and returns how many it looked at.
func (j *HashJoin) writeRows(in int, s *side, n int) (int, error) {
	p, ck := &j.snap, &j.ck
	scan := math.MaxInt
	if n < math.MaxInt/scanShare {
		scan = scanShare * n
	}
	ids := s.pend.Next(p.batch[:0], n, scan)
	p.batch = ids
	if len(ids) == 0 {
		return 0, nil
	}
	keyCols, err := j.keyHashes(s, ids)
	if err != nil {
		return 0, err
	}
	defer arrays.Release(keyCols)
	for k, id := range ids {
		g := j.groupOf(in, ck.hashes[k])
		if !j.writes(in, g) {
			s.changes.Drop(id)
			continue
		}
		key := rowkey.Append(append(j.keyBuf[:0], 1), keyCols, k)
		j.keyBuf = key
		ck.key = rowstore.AppendEntryKey(ck.key[:0], sideTag(in), key, s.changes.Persist(id, g, s.pend.Epoch()))
		ck.value = j.appendValue(ck.value[:0], s, id)
		if err := p.w.Put(g, ck.key, ck.value); err != nil {
			return k, err
		}
	}
	return len(ids), nil
}

// writes reports whether the instance writes the entries of input in's
// rows in key group g: all but a broadcast join's replicated rows of the
// groups other instances own.
func (j *HashJoin) writes(in, g int) bool {
	return !j.cfg.Broadcast || j.perInstance(in) || j.env.KeyGroups.Contains(g)
}

// appendValue appends the entry value of side s's row id: the row, then
// its match count on a counted side.
func (j *HashJoin) appendValue(buf []byte, s *side, id int32) []byte {
	buf = s.store.AppendRow(buf, id)
	if s.counted {
		buf = binary.AppendUvarint(buf, uint64(s.matches[id]))
	}
	return buf
}

// save takes side s's row id off the pending snapshot, if it is on it,
// encoding its entry as it is now — as at the barrier, since whatever
// changed it since would have saved it first — for a later step to write.
// Its key group comes from its bucket's hash, the join key's as the
// exchange hashes it. Callers check s.pend.Has(id) first, so that a batch
// pays a bit test when no snapshot is pending.
func (j *HashJoin) save(s *side, id int32) {
	if !s.pend.Take(id) {
		return
	}
	in := s.input()
	g := j.groupOf(in, s.buckets.Ref(s.bucketOf.At(id)).hash)
	if !j.writes(in, g) {
		s.changes.Drop(id)
		return
	}
	p := &j.snap
	p.key = s.store.AppendKey(append(p.key[:0], 1), id, s.keys)
	p.entry = rowstore.AppendEntryKey(p.entry[:0], sideTag(in), p.key, s.changes.Persist(id, g, s.pend.Epoch()))
	p.value = j.appendValue(p.value[:0], s, id)
	p.saved.Put(g, p.entry, p.value)
}

// input returns the input whose rows side s keeps.
func (s *side) input() int {
	if s.tag == tagLeft {
		return 0
	}
	return 1
}

// bytes estimates the memory of the pending snapshot.
func (p *pendingSnap) bytes() int64 {
	return p.saved.Bytes() + int64(cap(p.key)+cap(p.entry)+cap(p.value)) + 4*int64(cap(p.batch))
}
