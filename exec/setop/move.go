package setop

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
)

// Rescaling in place (exec.GroupMover). The counts are split by key group
// (an entry is in the group of its row's hash, the exchange's), so the
// new instance takes over the old instance's table, removes the entries
// of the key groups it no longer owns — writing no deletion: their
// entries are their new owners' — and restores only the key groups it
// gains from the store. The old instance stopped at the checkpoint's
// barrier with its snapshot written, so its entries are the checkpoint's
// of the groups it owned, each written and none listed: the table is then
// the one a restore of all its groups builds.
//
// It reports false (a full restore) for an old instance that is not a
// set operation configured alike, or one with changes since its last
// snapshot (entries listed to put, or deletions to write).

var _ exec.GroupMover = (*Operator)(nil)

// AdoptGroups implements exec.GroupMover.
func (o *Operator) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	p, ok := old.(*Operator)
	switch {
	case !ok || p == o || !p.open || !o.open:
		return false, nil
	case !reflect.DeepEqual(p.cfg, o.cfg):
		return false, nil
	case len(p.d.changed) > 0 || len(p.d.delEnds) > 0:
		return false, nil // not as of a checkpoint
	}
	o.tab, p.tab = p.tab, table{}
	for id := range o.tab.entries {
		if e := &o.tab.entries[id]; e.flags&live != 0 && !o.env.KeyGroups.Contains(exec.KeyGroup(e.hash)) {
			o.tab.remove(int32(id))
		}
	}
	for _, g := range o.env.KeyGroups.Minus(held) {
		if err := o.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	o.updateMetrics()
	return true, nil
}
