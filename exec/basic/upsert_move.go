package basic

import (
	"context"
	"slices"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
)

// Rescaling in place (exec.GroupMover). The new instance takes over the
// old instance's map of latest rows and its delta, drops the keys of the
// key groups it no longer owns, writing no deletion (their entries are
// their new owners'), and reads from the checkpoint only the key groups it
// gains, as Restore reads them. Its state is then the one a restore of all
// its key groups builds: the old instance stopped at the checkpoint's
// barrier with its snapshot written, so its map holds exactly the
// checkpoint's entries of the groups it owned — no row is dirty or gone
// (a snapshot clears both, and only a change listed in the delta sets
// them) — and its delta is tracking with nothing listed, as a restore
// leaves it. A key's group is computed as a snapshot computes it
// (keyGroups: exec.HashRows over its row's key columns).
//
// It falls back to a full restore (reports false, changing nothing) for
// an old instance that is not an opened Upsert configured alike (names,
// types, key columns), one with changes since its last snapshot (changes
// not tracked yet — no snapshot or restore happened — or keys listed in
// the delta), and an Upsert without a primary key whose rows (all in the
// old instance's first key group) do not stay in the new instance's first
// key group, where a restore would put them.

// dropChunk is how many keys a drop hashes at a time.
const dropChunk = 4096

var _ exec.GroupMover = (*Upsert)(nil)

// AdoptGroups implements exec.GroupMover.
func (u *Upsert) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*Upsert)
	switch {
	case !ok || o == u || o.rows == nil || u.rows == nil:
		return false, nil
	case !slices.Equal(o.Names, u.Names) || !slices.Equal(o.Types, u.Types) || !slices.Equal(o.Keys, u.Keys):
		return false, nil // another configuration
	case !o.delta.tracking || len(o.delta.ends) > 0:
		return false, nil // not as of a checkpoint: changes since its snapshot
	case len(u.Keys) == 0 && held.Lo != u.env.KeyGroups.Lo:
		// Without a key, the rows are in the old instance's first key group.
		return false, nil
	}
	u.rows, u.live, u.delta = o.rows, o.live, o.delta
	o.rows, o.live, o.delta = nil, 0, upsertDelta{}
	if err := u.dropGroups(); err != nil {
		return true, err
	}
	for _, g := range u.env.KeyGroups.Minus(held) {
		if err := u.Restore(ctx, r, g); err != nil {
			return true, err
		}
	}
	u.delta.tracking = true
	u.env.Metrics.StateKeys.Store(int64(u.live))
	return true, nil
}

// dropGroups forgets the keys outside the key groups the instance owns.
// Nothing is dirty or gone (the old instance's snapshot was written), so
// a key is simply removed from the map.
func (u *Upsert) dropGroups() error {
	if len(u.Keys) == 0 {
		return nil // the one group stays (AdoptGroups)
	}
	keys := make([]string, 0, min(len(u.rows), dropChunk))
	rows := make([][]types.Datum, 0, cap(keys))
	groups := make([]int, 0, cap(keys))
	var hashes []uint64
	drop := func() error {
		if len(keys) == 0 {
			return nil
		}
		cols := u.keyColumns(rows)
		defer arrays.Release(cols)
		groups = groups[:len(rows)]
		var err error
		if hashes, err = exec.RowKeyGroups(cols, hashes, groups); err != nil {
			return err
		}
		for i, k := range keys {
			if !u.env.KeyGroups.Contains(groups[i]) {
				delete(u.rows, k)
				u.live--
			}
		}
		keys, rows = keys[:0], rows[:0]
		return nil
	}
	// Deleting the keys of a chunk already visited while ranging over
	// the map is allowed, and changes none of the keys still to come.
	for k, row := range u.rows {
		keys, rows = append(keys, k), append(rows, row.vals)
		if len(keys) == dropChunk {
			if err := drop(); err != nil {
				return err
			}
		}
	}
	return drop()
}
