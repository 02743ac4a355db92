package topn

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// touchedSlot is a slot the current chunk touched, with the arena
// offset of its row's sort key before the chunk, unless the chunk created
// it. The old key's bytes stay in the arena until the chunk is done.
type touchedSlot struct {
	id      int32
	oldN    uint32 // the length of the old sort key
	old     uint64 // the arena offset of the old sort key
	created bool
}

// apply applies every row encoded (t.skeys), whose operations are ops (nil:
// all inserts), to its partition's tree in order and records the changes
// in t.deltas.
func (t *Operator) apply(ops []exec.Op) error {
	var p *ordtree.Partition
	for i := range t.skeys {
		if p == nil || !bytes.Equal(t.pkeys[i], t.pkeys[i-1]) {
			p = t.parts.Touch(t.pkeys[i])
		}
		key := ordtree.KeyOf(ordtree.View(t.skeys[i]))
		w := int64(1)
		if ops != nil {
			w = ops[i].Weight()
		}
		if t.cfg.AppendOnly {
			if err := t.addBounded(p, key, w); err != nil {
				return err
			}
			continue
		}
		stored, _, err := p.Tree.Add(key, w, 0, 0, &t.parts.Gauge)
		if err != nil {
			return rowError(err)
		}
		t.deltas = append(t.deltas, ordtree.Delta{Part: p.Index, Key: stored.Key, W: w})
	}
	return nil
}

// rowError reports a failed change of a tree.
func rowError(err error) error {
	if errors.Is(err, ordtree.ErrAbsent) {
		return fmt.Errorf("top-n: %w", aggstate.ErrNegativeCount)
	}
	return fmt.Errorf("top-n: %w", err)
}

// addBounded adds a row to a partition that keeps only its top Limit rows:
// a row that sorts at or after the last of a full partition cannot enter
// and is dropped; otherwise it enters and, if the partition was full, one
// copy of its last row leaves.
func (t *Operator) addBounded(p *ordtree.Partition, key ordtree.Key, w int64) error {
	if w < 0 {
		return errRetraction
	}
	tr := &p.Tree
	var evict ordtree.Key
	if tr.Total >= t.cfg.Limit {
		last := tr.Last()
		if key.Compare(last.Key) >= 0 {
			return nil
		}
		evict = last.Key
	}
	stored, _, err := tr.Add(key, 1, 0, 0, &t.parts.Gauge)
	if err != nil {
		return rowError(err)
	}
	t.deltas = append(t.deltas, ordtree.Delta{Part: p.Index, Key: stored.Key, W: 1})
	if tr.Total > t.cfg.Limit {
		if _, _, err := tr.Add(evict, -1, 0, 0, &t.parts.Gauge); err != nil {
			return rowError(err)
		}
		t.deltas = append(t.deltas, ordtree.Delta{Part: p.Index, Key: evict, W: -1})
	}
	return nil
}

// applyDedup applies every row of c in the de-duplication fast path: a
// partition keeps the row with the smallest sort key.
func (t *Operator) applyDedup(c exec.Chunk) error {
	st, g := t.slots, &t.parts.Gauge
	for i := range t.skeys {
		if c.Op(i).IsRetraction() {
			return errRetraction
		}
		pk, key := t.pkeys[i], t.skeys[i]
		h := hashPart(pk)
		id := st.find(h, pk)
		if id < 0 {
			id = st.add(h, pk, key)
			st.at(id).epoch = t.parts.Epoch
			t.touchedSlots = append(t.touchedSlots, touchedSlot{id: id, created: true})
			t.dedup.created(id, i)
			g.Rows, g.Entries, g.Parts = g.Rows+1, g.Entries+1, g.Parts+1
			g.KeyBytes += int64(len(pk) + len(key))
			continue
		}
		s := st.at(id)
		if s.epoch != t.parts.Epoch {
			s.epoch = t.parts.Epoch
			t.touchedSlots = append(t.touchedSlots, touchedSlot{id: id, old: s.key, oldN: s.keyN})
		}
		if ordtree.View(key) < st.keyOf(s) {
			if t.dedup.pend.w != nil {
				t.saveSlot(s, id) // copy-on-write: the entry as of the barrier
			}
			g.KeyBytes += int64(len(key)) - int64(s.keyN)
			st.setKey(s, key)
		}
	}
	t.slotGroups(c)
	return nil
}

// diffDedup records the output of the de-duplication fast path: +I for a
// new partition's row, -U old / +U new for a replaced one. A row is only
// ever replaced by a smaller one, at a new offset of the arena, so a
// slot's row changed if and only if its key's offset did.
func (t *Operator) diffDedup() {
	st := t.slots
	for _, ts := range t.touchedSlots {
		switch s := st.at(ts.id); {
		case ts.created:
			t.addOut(st.partOf(s), st.keyOf(s), 0, exec.Insert)
			t.dedup.mark(ts.id)
		case ts.old != s.key:
			part := st.partOf(s)
			t.addOut(part, st.arena.String(ts.old, ts.oldN), 0, exec.UpdateBefore)
			t.addOut(part, st.keyOf(s), 0, exec.UpdateAfter)
			t.dedup.mark(ts.id)
		}
	}
}

// finishChunk drops the partitions the chunk emptied and resets the
// per-chunk scratch, dropping its references to keys; then, with no view
// of the de-duplication arena left, it compacts the arena if it is mostly
// dead.
func (t *Operator) finishChunk() {
	t.parts.Finish()
	t.dedup.finishChunk()
	clear(t.deltas)
	t.netter.Reset()
	clear(t.outRows)
	t.touchedSlots = t.touchedSlots[:0]
	t.deltas, t.outRows = t.deltas[:0], t.outRows[:0]
	if t.slots != nil {
		t.slots.maybeCompact()
	}
}
