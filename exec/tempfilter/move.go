package tempfilter

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
)

// Rescaling in place (exec.GroupMover). The kept rows are split by key
// group (each in the group of the hash of all its columns), so the new
// instance takes over the old instance's rows and expiry heap, drops the
// rows of the key groups it no longer owns — writing no deletion: their
// entries are their new owners' — and restores only the key groups it
// gains. NOW() is not split: it is one value, written to every group the
// instance owns, and a restore takes the highest of its groups'. The old
// instance's NOW() is what its kept groups hold only while all its groups
// hold it (delta.nowEverywhere: it wrote NOW() to all of them since its
// restore, or it is a fresh instance); then the new instance starts from
// it, as a restore reading the kept groups would, and the gained groups'
// entries may raise it.
//
// It reports false (a full restore) for an old instance that is not a
// temporal filter configured alike, one with changes since its last
// snapshot (untracked, rows listed, or NOW() advanced), or one whose
// groups may hold different NOW()s (restored, and NOW() not written
// since).

var _ exec.GroupMover = (*Filter)(nil)

// AdoptGroups implements exec.GroupMover.
func (f *Filter) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*Filter)
	switch {
	case !ok || o == f || o.rows == nil || f.rows == nil:
		return false, nil
	case !reflect.DeepEqual(o.cfg, f.cfg):
		return false, nil
	case !o.delta.tracking || len(o.delta.dirty) > 0 || len(o.delta.gone) > 0 || o.delta.nowChanged:
		return false, nil // not as of a checkpoint
	case !o.delta.nowEverywhere:
		return false, nil // NOW() of the kept groups unknown without reading them
	}
	f.rows, f.heap, f.bytes = o.rows, o.heap, o.bytes
	o.rows, o.heap, o.bytes = nil, nil, 0
	if held.Overlap(f.env.KeyGroups) > 0 {
		f.now = o.now
	}
	for k, e := range f.rows {
		if !f.env.KeyGroups.Contains(int(e.group)) {
			f.heap.remove(e)
			delete(f.rows, k)
			f.bytes -= entryBytes(e)
		}
	}
	f.delta = delta{tracking: true}
	for _, g := range f.env.KeyGroups.Minus(held) {
		if err := f.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	f.delta.nowEverywhere = false // as after a restore
	f.gauge()
	return true, nil
}
