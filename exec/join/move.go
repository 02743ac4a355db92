package join

import (
	"context"
	"reflect"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ttl"
)

// Rescaling in place (exec.GroupMover). When a rescale hands the new
// instance the old instance it is matched with, the new one takes over
// the old one's sides — row stores, indexes and buckets (with their row
// indexes), match counts, deadlines, TTL wheels and change tracking
// — drops the rows of the key groups it no longer owns, and reads from
// the checkpoint only the key groups it gains. Its state is then the one
// a restore of all its key groups builds:
//
//   - The old instance stopped at the checkpoint's barrier with its
//     snapshot written: nothing is dirty, every row it holds has its
//     entry, and its rows are the checkpoint's rows of its groups.
//   - A bucket is in the key group of its join key's hash, as its rows'
//     entries are (a keyed, not broadcast join): the buckets outside the
//     new range go whole, in one pass over the buckets, without a
//     deletion (their entries are their new owners'); their rows' deadline
//     entries go stale and the deadlines are filtered of the stale ones.
//   - The gained groups' rows are added as Restore adds them
//     (restoreScan), a windowed join's watermark becomes the highest of
//     the old instance's and the gained groups' entries — what a restore
//     finds, since after a snapshot every group an instance owns holds its
//     watermark (Restore has the next snapshot rewrite them) — and the
//     next snapshot writes it in every group, as after a restore.
//   - Kept keys count as accessed at the move for the state TTL, as
//     restored ones do, listed in a new wheel as a restore lists them.
//   - A lookup join waits for its table to catch up again, as after a
//     restore (Open sets it waiting).
//
// It falls back to a full restore (reports false) when the old instance
// is not a HashJoin configured alike, or is not as of the checkpoint
// (something marked, deleted or moved since its snapshot, its watermark
// not written), and for the state it cannot split by key group here:
//
//   - a broadcast join: its right side is replicated and its left rows
//     are laid out by the forwarding instance (state.go), and a restore
//     at another parallelism is refused anyway (errRescaledBroadcast);
//   - a restore of another layout (exec.Env.Relayout: the adaptive
//     join's switch between broadcast and hash), which moves rows between
//     groups (relayout.go);
//   - a cross join, whose rows are all in its instance's first key group,
//     unless it keeps exactly its key groups (it runs as one instance);
//   - a lookup join holding stream rows while its table catches up: a
//     restore rebuilds them in the checkpoint's order, and they are rare
//     (only until the table first catches up).

var _ exec.GroupMover = (*HashJoin)(nil)

// AdoptGroups implements exec.GroupMover. It takes over old's state when
// old is an opened HashJoin configured alike, with no change since its
// last snapshot, unless the join's state is not laid out by key group as
// a move needs (see above); otherwise it reports false and changes
// nothing.
func (j *HashJoin) AdoptGroups(ctx context.Context, old exec.Operator, held exec.KeyGroupRange, r exec.StateReader) (bool, error) {
	o, ok := old.(*HashJoin)
	switch {
	case !ok || o == j || o.env == nil || j.env == nil || o.sides[0] == nil:
		return false, nil
	case !reflect.DeepEqual(o.cfg, j.cfg) || held != o.env.KeyGroups:
		return false, nil
	case j.cfg.Broadcast:
		return false, nil // replicated and forwarded rows: not by key group
	case j.cfg.Relayout && j.env.Relayout:
		return false, nil // another layout's checkpoint: rows move between groups
	case !j.keyed() && held != j.env.KeyGroups:
		return false, nil // a cross join's rows are in its first group
	case len(o.pending) > 0:
		return false, nil // a lookup join's stream rows, waiting
	case !o.asOfSnapshot():
		return false, nil
	}
	j.sides, o.sides = o.sides, [2]*side{}
	if j.ttl != nil {
		j.ttl.now = j.env.Now().UnixMilli()
		for _, s := range j.sides {
			s.ttl.now = &j.ttl.now
		}
	}
	for _, s := range j.sides {
		if j.keyed() {
			s.dropGroups(j.env.KeyGroups)
		}
		if s.ttl != nil {
			// A wheel of its own, as a restore's: the kept keys are
			// listed under their new deadlines, not under their old
			// ones (Touch would leave them there), and expire when a
			// restored instance's do.
			s.ttl.wheel = ttl.New(j.cfg.StateTTL)
			s.touchAll()
		}
	}
	if err := j.restoreScan(ctx, r, j.env.KeyGroups.Minus(held), nil, o.ck.wm); err != nil {
		return true, err
	}
	return true, nil
}

// asOfSnapshot reports whether nothing changed since the join's last
// snapshot, all written: no row marked or removed, no entry to move or
// delete, a windowed join's watermark written, and no pending stream row.
func (j *HashJoin) asOfSnapshot() bool {
	ck := &j.ck
	for _, s := range j.sides {
		if !s.changes.Clean() {
			return false
		}
	}
	return j.snap.w == nil && len(ck.moveGroups) == 0 && ck.wm == ck.savedWM && len(j.pending) == 0 &&
		len(ck.pendGroups) == 0 && len(ck.delGroups) == 0
}

// dropGroups frees the buckets, and their rows, whose join key is in a
// key group outside own, writing no deletion: one pass over the buckets,
// each dropped row visited once. A windowed side's deadlines are
// filtered of the dropped rows' entries (and the stale ones).
func (s *side) dropGroups(own exec.KeyGroupRange) {
	dropped := false
	for b := range s.nbuckets {
		bk := s.buckets.Ref(b)
		if bk.n == 0 || own.Contains(exec.KeyGroup(bk.hash)) {
			continue
		}
		for id := bk.head; id != noRow; id = s.rnext.At(id) {
			s.changes.Drop(id)
			s.store.Remove(id)
			if s.counted {
				s.matches[id] = 0
			}
			if int(id) < len(s.gen) {
				s.gen[id]++ // its deadline entry is stale
			}
		}
		s.freeBucket(b)
		dropped = true
	}
	if d := &s.deadline; dropped && d.len() > 0 {
		d.filter(s.current)
		s.stale = 0
	}
}

// touchAll counts every key the side holds as accessed now, for the state
// TTL.
func (s *side) touchAll() {
	for b := range s.nbuckets {
		if s.buckets.Ref(b).n > 0 {
			s.touch(b)
		}
	}
}
