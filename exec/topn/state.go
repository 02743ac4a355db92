package topn

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// The Top-N's checkpoints (exec.Stateful). Its state is its partitions'
// rows, and each distinct row of a partition is one entry, encoded as the
// ordered tree's (ordtree.AppendEntryKey, AppendEntryValue): the
// partition key and the row's sort key, valued by its number of copies.
// De-duplication's one row per partition is such an entry too, of one
// copy. An entry is in the key group of its partition key, computed with
// exec.HashRows over the PARTITION BY columns decoded from the key (by
// de-duplication, over the columns of the row that created the
// partition), as the hash exchange in front of the operator hashes the
// partition's rows; a Top-N without partitions keeps its rows in its
// instance's first key group.
//
// What the operator has emitted so far needs no entry of its own: after
// every chunk its output, integrated, is exactly the top Limit rows of
// every partition (with their row numbers), a function of the rows held.
// So a restored operator, holding the same rows, computes from the next
// chunk the same retractions and insertions an uninterrupted run emits.
//
// A snapshot writes the rows changed since the previous one: the netted
// changes of every chunk are recorded in an ordtree.Changes (a row's
// partition and sort key, strings the tree already holds), from the first
// snapshot or restore on; the first snapshot writes every row held.
// De-duplication tracks its changes, and keeps its key groups, in its
// slots instead (dedupstate.go), and writes its snapshots in steps
// (dedupsnap.go).

// errRestore is wrapped by every error of a restore.
var errRestore = errors.New("top-n: restore")

// entry is a row a snapshot writes: n copies (0: deleted) of the row
// with sort key key in the partition with key part.
type entry struct {
	part, key string
	n         int64
}

// snapshot is Snapshot's scratch.
type snapshot struct {
	entries []entry
	parts   []string // the distinct partition keys of entries, in order
	groups  []int    // by partition of parts: its key group
	hashes  []uint64
	key     []byte
	value   []byte
	touched byte // what touchSlots read, kept so that its loads are not dropped
}

// Snapshot implements exec.Stateful: it writes a Put for every row whose
// copies changed since the last snapshot and a Delete for every row gone
// (every row held, the first time), at once, after the rest of a snapshot
// begun before.
func (t *Operator) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	if t.builders == nil {
		return errors.New("top-n: Snapshot before Open")
	}
	_, err := t.BeginSnapshot(ctx, epoch, w)
	if err == nil {
		err = exec.FinishSnapshot(ctx, t)
	}
	t.updateMetrics()
	return err
}

// writeAll writes every row held, the first snapshot of a general Top-N
// whose changes were not tracked, and starts tracking them.
func (t *Operator) writeAll(w exec.StateWriter) error {
	s := &t.snap
	clear(s.entries)
	s.entries = s.entries[:0]
	collect := func(part, key string, n int64) error {
		s.entries = append(s.entries, entry{part: part, key: key, n: n})
		return nil
	}
	if err := t.parts.Snapshot(&t.changes, collect); err != nil {
		return fmt.Errorf("top-n: snapshot: %w", err)
	}
	err := t.writeEntries(w)
	t.changes.Done()
	return err
}

// writeEntries writes the entries of t.snap.entries, in which the entries
// of a partition are adjacent when it can (they are written in any order),
// and empties it.
func (t *Operator) writeEntries(w exec.StateWriter) error {
	s := &t.snap
	defer func() {
		clear(s.entries)
		s.entries = s.entries[:0]
	}()
	if err := t.keyGroups(); err != nil {
		return fmt.Errorf("top-n: snapshot: %w", err)
	}
	p := -1
	for i, e := range s.entries {
		if i == 0 || e.part != s.entries[i-1].part {
			p++
		}
		s.key = ordtree.AppendEntryKey(s.key[:0], e.part, e.key)
		var err error
		if e.n == 0 {
			err = w.Delete(s.groups[p], s.key)
		} else {
			s.value = ordtree.AppendEntryValue(s.value[:0], e.n)
			err = w.Put(s.groups[p], s.key, s.value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keyGroups sets t.snap.parts to the partition keys of the snapshot's
// entries (one for each run of consecutive entries of a partition) and t.snap.groups to the key group of each: the instance's first group
// without partitions, else the group of exec.HashRows over the PARTITION
// BY columns decoded from the key that the input was hashed on
// (Config.PartKeys), as the exchange hashed the rows.
func (t *Operator) keyGroups() error {
	s := &t.snap
	s.parts = s.parts[:0]
	for i, e := range s.entries {
		if i == 0 || e.part != s.entries[i-1].part {
			s.parts = append(s.parts, e.part)
		}
	}
	return t.partGroups()
}

// partGroups sets t.snap.groups to the key group of each partition key
// of t.snap.parts (keyGroups).
func (t *Operator) partGroups() error {
	s := &t.snap
	n := len(s.parts)
	s.groups = append(s.groups[:0], make([]int, n)...)
	if len(t.cfg.Partition) == 0 || n == 0 {
		for i := range s.groups {
			s.groups[i] = t.env.KeyGroups.Lo
		}
		return nil
	}
	for _, pk := range s.parts {
		if err := t.decodeKey(t.layout.Part, pk); err != nil {
			t.resetBuilders()
			return err
		}
	}
	// The decoded columns, by input ordinal; the partition's columns in
	// the order the exchange hashes them (which may repeat one).
	arrs := make([]arrow.Array, len(t.cfg.Input))
	for _, f := range t.layout.Part {
		arrs[f.Ord] = t.builders[f.Ord].NewArray()
	}
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	ords := t.hashed
	cols := make([]arrow.Array, len(ords))
	for i, ord := range ords {
		cols[i] = arrs[ord]
	}
	var err error
	s.hashes, err = exec.RowKeyGroups(cols, s.hashes, s.groups)
	return err
}

// Restore implements exec.Stateful: it puts back the rows of the
// partitions in groups. Every entry is checked to decode as a row of the
// operator's layout; a damaged one fails the restore.
func (t *Operator) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	if t.builders == nil {
		return errors.New("top-n: Restore before Open")
	}
	var scratch []byte
	err := r.Scan(ctx, groups, func(g int, k, v []byte) error {
		if err := t.restoreEntry(&scratch, g, k, v); err != nil {
			return fmt.Errorf("%w: key group %d: entry %q: %w", errRestore, g, k, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	t.changes.Done()
	t.dedup.written = true
	t.updateMetrics()
	return nil
}

// restoreEntry puts back the row of one entry, read from key group g.
func (t *Operator) restoreEntry(scratch *[]byte, g int, k, v []byte) error {
	part, key, err := ordtree.SplitEntryKey(k)
	if err != nil {
		return err
	}
	if *scratch, err = t.layout.CheckKeys(*scratch, part, key); err != nil {
		return err
	}
	n, rest, err := ordtree.EntryCount(v)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: %d bytes after the count", ordtree.ErrDamaged, len(rest))
	}
	if t.slots != nil {
		if n != 1 {
			return fmt.Errorf("%w: %d copies of a de-duplicated row", ordtree.ErrDamaged, n)
		}
		st := t.slots
		h := hashPart(part)
		if st.find(h, part) >= 0 {
			return fmt.Errorf("%w: a second row of a de-duplicated partition", ordtree.ErrDamaged)
		}
		// The row is the entry checkpoints hold, in the group it was read
		// from.
		s := st.at(st.add(h, part, key))
		s.group = uint16(g)
		st.setSaved(s, s.key, s.keyN)
		gg := &t.parts.Gauge
		gg.Rows, gg.Entries, gg.Parts, gg.KeyBytes = gg.Rows+1, gg.Entries+1, gg.Parts+1, gg.KeyBytes+int64(len(part)+len(key))
		return nil
	}
	p, err := t.parts.Load(ordtree.View(part), ordtree.View(key), n)
	if err != nil {
		return err
	}
	if t.cfg.AppendOnly && p.Tree.Total > t.cfg.Limit {
		return fmt.Errorf("%w: more than %d rows in a partition of an append-only input", ordtree.ErrDamaged, t.cfg.Limit)
	}
	return nil
}
