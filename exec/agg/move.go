package agg

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
)

// Rescaling in place (exec.GroupMover). When a rescale hands the new
// instance the old instance it is matched with, the new one takes over
// the old one's groups — the group table, the arena and the aggregates'
// columns, the close index, the TTL wheel and the delta — drops the
// groups of the key groups it no longer owns, and reads from the
// checkpoint only the key groups it gains. Its state is then the one a
// restore of all its key groups builds: the old instance stopped at the
// checkpoint's barrier with its snapshot written (nothing is dirty, and
// its groups are the checkpoint's), a dropped group is forgotten without
// a deletion (its entry is its new owner's), the restored groups are
// added as Restore adds them, and the watermark becomes the highest of
// the old instance's and the gained groups' entries — what a restore
// finds, since the old instance's entries in all its groups hold its own
// watermark after the checkpoint (restoreGroups). Kept groups count as
// accessed at the move for the state TTL, as restored ones do.

// dropChunk is how many groups a drop looks up at a time: their entry
// keys and key groups are computed in batches, as a snapshot's are.
const dropChunk = 4096

var _ exec.GroupMover = (*HashAgg)(nil)

// AdoptGroups implements exec.GroupMover. It takes over old's state when
// old is an opened HashAgg configured alike, with no change since its
// last snapshot; otherwise it reports false and changes nothing.
func (h *HashAgg) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*HashAgg)
	switch {
	case !ok || o == h || o.keys == nil || h.keys == nil:
		return false, nil
	case !reflect.DeepEqual(o.cfg, h.cfg):
		return false, nil
	case o.pend.w != nil || len(o.delta.slots) > 0 || len(o.delta.delEnds) > 0 || !o.delta.written:
		// Not as of a checkpoint: something changed since its snapshot.
		return false, nil
	case o.keys.mode == keysGlobal && held.Lo != h.env.KeyGroups.Lo:
		// The one group is in the instance's first key group.
		return false, nil
	}
	h.keys, h.aggs, h.arena, h.close = o.keys, o.aggs, o.arena, o.close
	h.initialSent = o.initialSent
	h.delta = o.delta
	if o.ttl != nil {
		h.ttl = o.ttl
		h.ttl.evicted = h.env.Metrics.Counter(evictedCounter)
	}
	o.keys, o.aggs, o.arena, o.close, o.ttl = nil, nil, nil, nil, nil
	o.delta = delta{}
	if err := h.dropGroups(); err != nil {
		return true, err
	}
	wm := noWatermark
	if h.close != nil {
		wm = h.close.wm
	}
	if err := h.restoreGroups(ctx, r, h.env.KeyGroups.Minus(held), wm); err != nil {
		return true, err
	}
	return true, nil
}

// dropGroups frees the groups outside the key groups the instance owns,
// writing no deletion, and counts the kept ones as accessed now for the
// state TTL.
func (h *HashAgg) dropGroups() error {
	if h.keys.mode == keysGlobal {
		return nil
	}
	written := h.delta.written
	h.delta.written = false // a dropped group's entry is its new owner's
	defer func() { h.delta.written = written }()
	d := &h.delta
	var slots, kept []int32
	n := int32(h.arena.Len())
	for lo := int32(0); lo < n; {
		slots, d.keys, d.ends = slots[:0], d.keys[:0], d.ends[:0]
		for ; lo < n && len(slots) < dropChunk; lo++ {
			if h.live(lo) {
				slots = append(slots, lo)
				d.keys = h.keys.appendEntryKey(d.keys, lo)
				d.ends = append(d.ends, len(d.keys))
			}
		}
		if len(slots) == 0 {
			continue
		}
		if err := h.keyGroups(d.keys, 0, d.ends); err != nil {
			return err
		}
		for i, s := range slots {
			if h.env.KeyGroups.Contains(d.groups[i]) {
				kept = append(kept, s)
			} else {
				h.freeSlot(s)
			}
		}
	}
	h.touchRestored(kept)
	return nil
}
