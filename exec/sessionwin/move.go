package sessionwin

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

// Rescaling in place (exec.GroupMover). The new instance takes over the
// old instance's sessions — the group map, the accumulators and their
// arena, the slots, the close heap, the pool and the delta — drops the
// group keys of the key groups it no longer owns, writing no deletion
// (their entries are their new owners'), and reads from the checkpoint
// only the key groups it gains, as Restore reads them. Its state is then
// the one a restore of all its key groups builds: the old instance
// stopped at the checkpoint's barrier with its snapshot written, so its
// groups are the checkpoint's entries of the key groups it owned — each
// stored, its key group known (g.kg), nothing dirty — and its sessions
// are marked emitted exactly when a restore marks them (running mode: a
// session's row is in the output after every chunk). What else Restore
// builds is recomputed: the creation counter becomes the highest number
// of the sessions kept or restored (the old instance's may be higher, from
// sessions closed or dropped since), and the close heap is rebuilt from
// the kept sessions before the gained ones join it. The operator keeps no
// watermark, so there is none to carry over. The chunk counter is the old
// instance's, so that no kept session looks touched by the next chunk.
//
// It falls back to a full restore (reports false, changing nothing) for
// an old instance that is not an opened SESSION aggregate configured
// alike; one with changes since its last snapshot (never snapshotted nor
// restored, so changes are not tracked and key groups may be unknown;
// groups marked dirty; or deletions pending); and a SESSION without group
// keys, whose one group is not split by key group (it lives in the
// instance's first key group), when that first key group is not the new
// instance's first.

var _ exec.GroupMover = (*Agg)(nil)

// AdoptGroups implements exec.GroupMover.
func (w *Agg) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*Agg)
	switch {
	case !ok || o == w || o.groups == nil || w.groups == nil:
		return false, nil
	case !reflect.DeepEqual(o.cfg, w.cfg):
		return false, nil
	case !o.delta.track || len(o.delta.groups) > 0 || len(o.delta.delEnds) > 0:
		return false, nil // not as of a checkpoint
	case len(w.cfg.GroupKeys) == 0 && held.Lo != w.env.KeyGroups.Lo:
		return false, nil // the one group is in the old instance's first key group
	}
	w.aggs, w.mergers, w.arena, w.slots = o.aggs, o.mergers, o.arena, o.slots
	w.groups, w.heap, w.pool, w.keyBytes = o.groups, o.heap, o.pool, o.keyBytes
	w.epoch = o.epoch
	w.delta = o.delta
	o.aggs, o.mergers, o.arena, o.slots = nil, nil, nil, aggstate.Slots{}
	o.groups, o.heap, o.pool, o.keyBytes = nil, nil, nil, 0
	o.delta = delta{}
	w.dropGroups()
	for _, g := range w.env.KeyGroups.Minus(held) {
		if err := w.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	w.updateStateMetrics()
	return true, nil
}

// dropGroups forgets the groups outside the key groups the instance owns
// and their sessions, recording no deletion, rebuilds the close heap from
// the sessions kept, and sets the creation counter to the highest of
// their numbers.
func (w *Agg) dropGroups() {
	w.seq = 0
	for _, g := range w.groups {
		if w.env.KeyGroups.Contains(int(g.kg)) {
			for _, s := range g.open {
				w.seq = max(w.seq, s.seq)
			}
			continue
		}
		for _, s := range g.open {
			w.freeSession(s) // which sets its heapIdx to -1: the heap is rebuilt below
		}
		g.open = nil
		w.forgetGroup(g)
	}
	kept := w.heap[:0]
	for _, s := range w.heap {
		if s.heapIdx >= 0 { // a dropped session was freed, its index reset
			s.heapIdx = len(kept)
			kept = append(kept, s)
		}
	}
	clear(w.heap[len(kept):])
	w.heap = kept
	w.heap.init()
}
