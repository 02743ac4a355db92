package join

import (
	"encoding/binary"
	"errors"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowstore"
)

// Moving a join's state across distributions (Config.Relayout). A join
// whose distribution switched at run time, broadcast to hash or back,
// restores a checkpoint the other distribution wrote (state.go):
//
//   - The right rows are in the key group of their key in both layouts,
//     each entry written by the instance owning its group: a hash join
//     restores those of its groups, a broadcast join all of them, as
//     always.
//   - The left rows are in the key group of their key in a hash join's
//     checkpoint, and within the forwarding instance's own groups in a
//     broadcast join's. A restoring instance reads the left entries of
//     every group and takes the rows whose key's group it owns: under
//     hash partitioning the exchange now routes each row's later changes,
//     its retraction included, there. Their match counts carry over: a
//     row's matches are the right rows of its key, which the instance
//     holds in either layout. Each row's entry moves to the group this
//     join writes it in (a new entry, the old one deleted by the instance
//     owning its group).
//   - A broadcast join forwards its left input: a left row's retraction
//     reaches the instance its upstream instance forwards to, which no
//     checkpoint records. So a broadcast join takes the left rows of a
//     checkpoint of another layout (a hash join's, or a broadcast join's
//     at another parallelism) only when its left input never retracts
//     (Config.LeftAppendOnly): any instance may then hold a row, and each
//     takes those of its key groups. Otherwise the restore is refused
//     (errSwitchRetracting). Restoring a broadcast join's own layout (the
//     range meta entry of its first group is its own) takes the rows of
//     its own groups, as a restore without Relayout does.
//   - Range meta entries of another layout are deleted by the instance
//     owning their group; a broadcast join writes its own.
//
// A lookup join keeps no left rows, only the stream rows it holds while
// its table catches up (pending): their input never retracts, so each
// instance takes those of its key groups, and writes them anew. Windowed
// joins do not move (Open refuses Relayout): their watermark entries are
// laid out by the distribution too.

// errSwitchRetracting is returned when a broadcast join would take the
// left rows of another layout while its left input may retract.
var errSwitchRetracting = errors.New("not supported yet: moving a join's left rows to a broadcast distribution when its left input retracts rows: a retraction would reach another instance than the one holding its row")

// relayout is what a restore with Config.Relayout learns besides the
// rows: whether the checkpoint is this broadcast join's own layout, and
// the entries of the instance's groups that the next snapshot deletes.
type relayout struct {
	sameRange bool
}

// restoreRange handles a range meta entry of key group g (owned): it
// records that the checkpoint is this join's own layout when it is, and
// has any other deleted, unless the join's own entry replaces it.
func (j *HashJoin) restoreRange(mv *relayout, g int, key, value []byte) error {
	lo, n := binary.Uvarint(value)
	hi, m := binary.Uvarint(value[max(n, 0):])
	if n <= 0 || m <= 0 || n+m != len(value) {
		return errors.New("bad range entry")
	}
	r := j.env.KeyGroups
	switch {
	case j.cfg.Broadcast && lo == uint64(r.Lo) && hi == uint64(r.Hi):
		mv.sameRange = true
	case j.cfg.Broadcast && g == r.Lo:
		// The next snapshot writes this instance's own over it.
	default:
		j.ck.deleteEntry(g, key)
	}
	return nil
}

// deleteEntry records that the next snapshot deletes the entry key of
// key group g.
func (ck *checkpoint) deleteEntry(g int, key []byte) {
	ck.moveKeys = append(ck.moveKeys, key...)
	ck.moveEnds, ck.moveGroups = append(ck.moveEnds, len(ck.moveKeys)), append(ck.moveGroups, g)
}

// writeMoves deletes the entries deleteEntry recorded.
func (ck *checkpoint) writeMoves(w exec.StateWriter) error {
	start := 0
	for i, g := range ck.moveGroups {
		if err := w.Delete(g, ck.moveKeys[start:ck.moveEnds[i]]); err != nil {
			return err
		}
		start = ck.moveEnds[i]
	}
	ck.moveKeys, ck.moveEnds, ck.moveGroups = nil, nil, nil
	return nil
}

// relayoutLeft keeps, of the left rows r read from every key group, those
// this instance holds (see above), each in the group it writes the row's
// entry in: a row whose entry moves gets identity 0, which indexRestored
// takes for a new row to write. The others leave the store, and the
// entries of its own groups that do not stay are deleted.
func (j *HashJoin) relayoutLeft(r *restored, mv *relayout) error {
	if len(r.ids) == 0 {
		return nil
	}
	left, own := j.sides[0], j.env.KeyGroups
	if j.cfg.Broadcast && mv.sameRange {
		var out restored
		start := 0
		for k, id := range r.ids {
			jk := r.keys[start:r.ends[k]]
			start = r.ends[k]
			if !own.Contains(r.groups[k]) {
				left.store.Remove(id) // another instance's forwarded rows
				continue
			}
			out.add(id, r.groups[k], r.idents[k], jk)
		}
		*r = out
		return nil
	}
	if j.cfg.Broadcast && !j.cfg.LeftAppendOnly {
		return errSwitchRetracting
	}
	keyCols, err := j.keyHashes(left, r.ids)
	if err != nil {
		return err
	}
	arrays.Release(keyCols)
	var out restored
	start := 0
	for k, id := range r.ids {
		jk := r.keys[start:r.ends[k]]
		start = r.ends[k]
		h, was := j.ck.hashes[k], r.groups[k]
		keep := own.Contains(exec.KeyGroup(h))
		to := j.groupOf(0, h)
		if (!keep || to != was) && own.Contains(was) {
			j.ck.deleteEntry(was, rowstore.AppendEntryKey(nil, tagLeft, jk, r.idents[k]))
		}
		if !keep {
			left.store.Remove(id)
			continue
		}
		ident := r.idents[k]
		if to != was {
			ident = 0
		}
		out.add(id, to, ident, jk)
	}
	*r = out
	return nil
}

// relayoutPending keeps, of a lookup join's pending stream rows r (with
// their ops) read from every key group, those of the key groups this
// instance owns; every entry of its own groups is deleted, as the next
// snapshot writes the rows kept anew (restore.go). It returns the ops of
// the rows kept.
func (j *HashJoin) relayoutPending(r *restored, ops []exec.Op) ([]exec.Op, error) {
	if len(r.ids) == 0 {
		return ops, nil
	}
	left, own := j.sides[0], j.env.KeyGroups
	keyCols, err := j.keyHashes(left, r.ids)
	if err != nil {
		return nil, err
	}
	arrays.Release(keyCols)
	var out restored
	var kept []exec.Op
	for k, id := range r.ids {
		h, was := j.ck.hashes[k], r.groups[k]
		if own.Contains(was) {
			j.ck.deleteEntry(was, rowstore.AppendEntryKey(nil, tagPending, "", r.idents[k]))
		}
		if !own.Contains(exec.KeyGroup(h)) {
			left.store.Remove(id)
			continue
		}
		out.add(id, j.groupOf(0, h), r.idents[k], nil)
		kept = append(kept, ops[k])
	}
	*r = out
	return kept, nil
}
