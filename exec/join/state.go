package join

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowstore"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// The hash join's checkpoints (exec.Stateful), for every kind it runs.
// Each kept row is one entry (rowstore.Changes), a copy of a row held
// several times one entry per copy:
//
//   - key: the side's tag (tagLeft, tagRight), the row's join key as the
//     side's index holds it (a 1 byte, then rowkey's encoding of the key
//     columns; a cross join's is the 1 byte alone), then the row's
//     identity, so that the entries of one join key share a prefix;
//   - value: the row (rowstore's encoding), then, on a side whose matches
//     are counted (a preserved side of an outer join, the left side of a
//     semi or anti join, a padded side of a windowed join), its match
//     count as a uvarint.
//
// An entry is in the key group of exec.HashRows over the row's key
// columns, as the hash exchange in front of the join routes it, so a
// restore at another parallelism gives each instance the rows of its
// keys. The state the distribution does not partition by key:
//
//   - a join without equi-keys (a cross join) runs as one instance: its
//     entries are in the instance's first key group;
//   - a broadcast join replicates its right side (the table) in every
//     instance: each instance writes the right rows of the key groups it
//     owns, and restores all of them, from every key group; its left side
//     is forwarded from the instances upstream, not partitioned by key, so
//     each instance writes its left rows within its own key groups (its
//     first plus the key's group modulo their number) and restores those.
//     A windowed broadcast join writes its right rows so too, the whole
//     replica within its own groups: each replica frees its rows by its
//     own instance's watermark, which follows the left rows forwarded to
//     it, so at a barrier the replicas differ, and one instance's could
//     not stand for another's (a right row one has freed, another may
//     still have to match).
//     A left row's later retraction reaches the instance that received
//     the row, so those rows restore correctly only at the parallelism of
//     the checkpoint: the range meta entry records it, and a restore at
//     another is refused (errRescaledBroadcast). A lookup join keeps no
//     left rows and restores at any parallelism.
//
// Beside the rows: a windowed join writes its last watermark in every key
// group it owns when it advanced, and after a restore (metaWatermark), so
// that every group it owns holds it after a snapshot, and after a restore
// it ignores the watermarks up to it, which the restarted sources send
// again, and frees and pads its rows when an uninterrupted run would; a
// row's deadline is its time column plus the side's offset, rebuilt from
// the row. A lookup join that still holds stream rows, waiting for its
// table to catch up, writes them (tagPending, with a sequence number for
// identity, the value the change's op byte then the row) in the key group
// of their key, and deletes them once it has looked them up. The row
// indexes of retracted buckets are caches and are rebuilt on demand.
//
// A snapshot writes only what changed since the last one: rows added or
// whose match count changed are marked in the side's rowstore.Changes (a
// bit per row and a list), removed rows that a checkpoint holds record
// their entry's deletion, and a snapshot writes those, in steps after the
// barrier (snapshot.go).
const (
	tagLeft    = 0x00
	tagRight   = 0x01
	tagPending = 0x02
	tagMeta    = 0xff
)

// The meta entries: tagMeta then one of these.
const (
	metaWatermark = 'w'
	metaRange     = 'r'
)

// noWatermark is the watermark of a join that has seen none.
const noWatermark = int64(-1 << 63)

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("hash join: restore")

// errRescaledBroadcast is returned when a broadcast join's checkpoint is
// restored at another parallelism than it was taken at.
var errRescaledBroadcast = errors.New("not supported yet: restoring a broadcast join's checkpoint at another parallelism")

var (
	_ exec.Stateful         = (*HashJoin)(nil)
	_ exec.FiniteInputState = (*HashJoin)(nil)
)

// StateOutlivesInput implements exec.FiniteInputState: the sides' rows
// serve only to match the rows still to come (an interval join padded
// its outer rows when the end of input passed them), unless a state TTL
// has evictions left that time alone triggers.
func (j *HashJoin) StateOutlivesInput() bool { return j.cfg.StateTTL > 0 }

// checkpoint is the join's state besides its rows, and the scratch of
// Snapshot and Restore.
type checkpoint struct {
	wm, savedWM int64 // the last watermark, and the last one snapshotted
	// floor is the watermark restored: the watermarks up to it, which the
	// restarted inputs send again, are ignored.
	floor      int64
	rangeSaved bool // a broadcast join's range meta entry was written
	// The pending stream rows of a lookup join: the chunks of j.pending
	// written so far, the sequence numbers handed out, and the entries
	// written (their groups and sequence numbers), deleted once looked up.
	pendSaved  int
	pendSeq    uint64
	pendGroups []int
	pendSeqs   []uint64
	delGroups  []int
	delSeqs    []uint64
	// The entries of the instance's groups a restore of another layout
	// left behind (relayout.go): keys concatenated, their ends and groups.
	moveKeys   []byte
	moveEnds   []int
	moveGroups []int

	ids    []int32
	hashes []uint64
	key    []byte
	value  []byte
}

// keyed reports whether the join has equi-keys, by which its inputs are
// partitioned or its right side looked up.
func (j *HashJoin) keyed() bool { return len(j.cfg.LeftKeys) > 0 }

// groupOf returns the key group of the entry of a row of input in whose
// key columns hash to h.
func (j *HashJoin) groupOf(in int, h uint64) int {
	r := j.env.KeyGroups
	switch {
	case !j.keyed():
		return r.Lo
	case j.perInstance(in):
		return r.Lo + exec.KeyGroup(h)%r.Len()
	}
	return exec.KeyGroup(h)
}

// perInstance reports whether the rows of input in are the instance's own
// rather than those of the key groups it owns: a broadcast join's left
// rows (forwarded), and a windowed broadcast join's right rows too (the
// instance's replica). They are written within the instance's own key
// groups and restore only at the parallelism they were written at.
func (j *HashJoin) perInstance(in int) bool {
	return j.cfg.Broadcast && (in == 0 || j.cfg.Windowed)
}

// sideTag is the tag of input in's entries.
func sideTag(in int) byte {
	if in == 0 {
		return tagLeft
	}
	return tagRight
}

// keyHashes gathers the key columns of side s's rows ids and sets
// j.ck.hashes to their hashes, as exec.HashRows hashes the rows in the
// exchange. The caller releases the columns.
func (j *HashJoin) keyHashes(s *side, ids []int32) ([]arrow.Array, error) {
	cols := make([]arrow.Array, len(s.keys))
	for k, o := range s.keys {
		cols[k] = s.store.Gather(j.env.Alloc, o, ids)
	}
	j.ck.hashes = vec.Resize(j.ck.hashes, len(ids))
	if err := exec.HashRows(cols, j.ck.hashes); err != nil {
		arrays.Release(cols)
		return nil, err
	}
	return cols, nil
}

// snapshotPending writes the stream rows a lookup join received since the
// last snapshot and still holds, and deletes those looked up since.
func (j *HashJoin) snapshotPending(w exec.StateWriter) error {
	ck := &j.ck
	for i, g := range ck.delGroups {
		ck.key = rowstore.AppendEntryKey(ck.key[:0], tagPending, "", ck.delSeqs[i])
		if err := w.Delete(g, ck.key); err != nil {
			return err
		}
	}
	ck.delGroups, ck.delSeqs = ck.delGroups[:0], ck.delSeqs[:0]
	left := j.sides[0]
	for _, c := range j.pending[ck.pendSaved:] {
		cols := c.Batch.Columns()
		keyCols := make([]arrow.Array, len(left.keys))
		for k, o := range left.keys {
			keyCols[k] = cols[o]
		}
		n := c.NumRows()
		ck.hashes = vec.Resize(ck.hashes, n)
		if err := exec.HashRows(keyCols, ck.hashes); err != nil {
			return fmt.Errorf("hash join: snapshot: %w", err)
		}
		for i := 0; i < n; i++ {
			// The stream side keeps no rows: its store encodes the row.
			id := left.store.Add(cols, i)
			ck.value = left.store.AppendRow(append(ck.value[:0], byte(c.Op(i))), id)
			left.store.Remove(id)
			ck.pendSeq++
			g := j.groupOf(0, ck.hashes[i])
			ck.key = rowstore.AppendEntryKey(ck.key[:0], tagPending, "", ck.pendSeq)
			if err := w.Put(g, ck.key, ck.value); err != nil {
				return err
			}
			ck.pendGroups, ck.pendSeqs = append(ck.pendGroups, g), append(ck.pendSeqs, ck.pendSeq)
		}
	}
	ck.pendSaved = len(j.pending)
	return nil
}

// lookedUp records that the pending stream rows were looked up: the
// entries written of them are deleted by the next snapshot.
func (ck *checkpoint) lookedUp() {
	ck.delGroups = append(ck.delGroups, ck.pendGroups...)
	ck.delSeqs = append(ck.delSeqs, ck.pendSeqs...)
	ck.pendGroups, ck.pendSeqs, ck.pendSaved = ck.pendGroups[:0], ck.pendSeqs[:0], 0
}
