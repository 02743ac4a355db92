package topn

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// Rescaling in place (exec.GroupMover). The new instance takes over the
// old instance's partitions — the ordered trees, or de-duplication's
// slots — drops those of the key groups it no longer owns, writing no
// deletion (their entries are their new owners'), and reads from the
// checkpoint only the key groups it gains, as Restore reads them. Its
// state is then the one a restore of all its key groups builds: the old
// instance stopped at the checkpoint's barrier with its snapshot written,
// so its rows are the checkpoint's entries of the groups it owned, and
// nothing is listed as changed. A partition's key group is computed as a
// snapshot computes it (keyGroups: hashing the PARTITION BY columns
// decoded from its key), or is the one de-duplication's slot keeps.
//
// It falls back to a full restore (reports false) for an old instance
// that is not a Top-N configured alike, one with changes since its last
// snapshot (general mode: changes not tracked yet, or listed; de-
// duplication: not written yet, slots dirty, a snapshot not all written,
// or a key group it failed to compute), and a Top-N without partitions whose one group (the
// instance's first key group) is not the new instance's first.

// dropChunk is how many partitions a drop decodes and hashes at a time.
const dropChunk = 4096

var _ exec.GroupMover = (*Operator)(nil)

// AdoptGroups implements exec.GroupMover.
func (t *Operator) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*Operator)
	switch {
	case !ok || o == t || o.builders == nil || t.builders == nil:
		return false, nil
	case !reflect.DeepEqual(o.cfg, t.cfg):
		return false, nil
	case o.slots != nil && (!o.dedup.written || len(o.dedup.dirty) > 0 || o.dedup.pend.w != nil || o.dedup.err != nil):
		return false, nil // not as of a checkpoint
	case o.slots == nil && (!o.changes.Tracking() || o.changes.Len() > 0 || o.top.w != nil):
		return false, nil // not as of a checkpoint
	case len(t.cfg.Partition) == 0 && held.Lo != t.env.KeyGroups.Lo:
		// The rows are in the old instance's first key group.
		return false, nil
	}
	t.parts, t.slots, t.dedup = o.parts, o.slots, o.dedup
	o.parts, o.slots, o.dedup = ordtree.Partitions{}, nil, dedupDelta{}
	if err := t.dropGroups(); err != nil {
		return true, err
	}
	for _, g := range t.env.KeyGroups.Minus(held) {
		if err := t.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	t.changes.Done()
	t.dedup.written = true
	t.updateMetrics()
	return true, nil
}

// dropGroups forgets the partitions outside the key groups the instance
// owns.
func (t *Operator) dropGroups() error {
	if len(t.cfg.Partition) == 0 {
		return nil
	}
	groups := t.env.KeyGroups
	if st := t.slots; st != nil {
		g := &t.parts.Gauge
		for id := range st.high() {
			if s := st.at(id); s.live && !groups.Contains(int(s.group)) {
				g.Rows, g.Entries, g.Parts, g.KeyBytes = g.Rows-1, g.Entries-1, g.Parts-1, g.KeyBytes-int64(s.partN)-int64(s.keyN)
				st.drop(id)
			}
		}
		st.maybeCompact()
		return nil
	}
	keys := t.parts.Keys()
	s := &t.snap
	for lo := 0; lo < len(keys); lo += dropChunk {
		s.parts = append(s.parts[:0], keys[lo:min(lo+dropChunk, len(keys))]...)
		if err := t.partGroups(); err != nil {
			return err
		}
		for i, pk := range s.parts {
			if !groups.Contains(s.groups[i]) {
				t.parts.Drop(pk)
			}
		}
	}
	clear(s.parts)
	s.parts = s.parts[:0]
	return nil
}
