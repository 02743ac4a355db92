package over

import (
	"context"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// Rescaling in place (exec.GroupMover). The new instance takes over the
// old instance's partitions — their ordered trees, the row store holding
// their values, DENSE_RANK's and GROUPS' peer-group trees and the
// checkpoint bookkeeping by row id — drops the partitions of the key
// groups it no longer owns (their rows leave the store, their ids the
// bookkeeping, their peer groups the gauge), writing no deletion (their
// entries are their new owners'), and restores only the key groups it
// gains from the store. A partition's key group is computed as a snapshot
// computes a row's: exec.HashRows over the PARTITION BY values of one of
// its rows, gathered from the row store. The old instance stopped at the
// checkpoint's barrier with its snapshot written, so its rows are the
// checkpoint's entries of the groups it owned and none is marked changed:
// the state is then the one a restore of all its groups builds (the row
// ids differ, which nothing observable depends on).
//
// It reports false (a full restore) for an old instance that is not a
// window aggregate configured alike, one with changes since its last
// snapshot (no snapshot written or restored yet, rows marked changed, or
// deletions listed), and one without PARTITION BY whose rows (in the old
// instance's first key group) are not in the new instance's first group.

// dropBatch is how many partitions a drop hashes at a time.
const dropBatch = 1024

var _ exec.GroupMover = (*Agg)(nil)

// AdoptGroups implements exec.GroupMover.
func (o *Agg) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	p, ok := old.(*Agg)
	switch {
	case !ok || p == o || p.store == nil || o.store == nil:
		return false, nil
	case !reflect.DeepEqual(p.cfg, o.cfg):
		return false, nil
	case !p.ck.written || len(p.ck.ids) > 0 || len(p.ck.delEnds) > 0 || p.pend.w != nil:
		return false, nil // not as of a checkpoint
	case len(o.cfg.Partition) == 0 && held.Lo != o.env.KeyGroups.Lo:
		return false, nil
	}
	o.store, o.parts, o.groups, o.groupGauge, o.ck = p.store, p.parts, p.groups, p.groupGauge, p.ck
	p.store, p.parts, p.groups, p.groupGauge, p.ck = nil, ordtree.Partitions{}, nil, ordtree.Gauge{}, checkpoint{}
	if err := o.dropGroups(); err != nil {
		return true, err
	}
	for _, g := range o.env.KeyGroups.Minus(held) {
		if err := o.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	o.ck.written = true
	o.updateMetrics()
	return true, nil
}

// dropGroups forgets the partitions outside the key groups the instance
// owns.
func (o *Agg) dropGroups() error {
	if len(o.cfg.Partition) == 0 {
		return nil
	}
	keys := o.parts.Keys()
	ids := make([]int32, 0, min(len(keys), dropBatch))
	groups := make([]int, 0, cap(ids))
	var hashes []uint64
	cols := make([]arrow.Array, len(o.cfg.Partition))
	for lo := 0; lo < len(keys); lo += dropBatch {
		batch := keys[lo:min(lo+dropBatch, len(keys))]
		ids = ids[:0]
		for _, pk := range batch {
			cur, _ := o.parts.Get(pk).Tree.SeekRank(0)
			ids = append(ids, cur.Entry().ID)
		}
		for i, ord := range o.cfg.Partition {
			cols[i] = o.store.Gather(o.env.Alloc, ord, ids)
		}
		groups = groups[:len(ids)]
		var err error
		hashes, err = exec.RowKeyGroups(cols, hashes, groups)
		arrays.Release(cols)
		if err != nil {
			return err
		}
		for i, pk := range batch {
			if !o.env.KeyGroups.Contains(groups[i]) {
				o.dropPartition(o.parts.Get(pk))
			}
		}
	}
	return nil
}

// dropPartition forgets partition p: its rows, their ids' bookkeeping and
// its peer groups.
func (o *Agg) dropPartition(p *ordtree.Partition) {
	_ = p.Tree.Each(func(e *ordtree.Entry) error {
		o.store.Remove(e.ID)
		o.ck.freedID(e.ID)
		return nil
	})
	if g := o.groups[p]; g != nil {
		o.groupGauge.Forget(g)
		delete(o.groups, p)
	}
	o.parts.Drop(p.Key)
}
