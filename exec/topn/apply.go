package topn

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// slot is the state of one partition in the de-duplication fast path:
// its only row, and what checkpoints need of it (dedupstate.go).
type slot struct {
	part  string // the encoded partition key
	key   string // the sort key of the partition's row
	saved string // the sort key of the entry checkpoints hold; "" for none
	epoch uint64 // the last chunk that touched the slot
	group uint16 // the key group of the partition
	dirty bool   // listed in the delta: changed since the last snapshot
}

// touchedSlot is a slot the current chunk touched, with the sort key of
// its row before the chunk ("" for a slot the chunk created: a sort key
// is never empty).
type touchedSlot struct {
	s   *slot
	old string
}

// apply applies every row of c to its partition's tree in order and records
// the changes in t.deltas.
func (t *Operator) apply(c exec.Chunk) error {
	var p *ordtree.Partition
	for i := range t.skeys {
		if p == nil || !bytes.Equal(t.pkeys[i], t.pkeys[i-1]) {
			p = t.parts.Touch(t.pkeys[i])
		}
		key := ordtree.KeyOf(ordtree.View(t.skeys[i]))
		w := c.Op(i).Weight()
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
	for i := range t.skeys {
		if c.Op(i).IsRetraction() {
			return errRetraction
		}
		key := ordtree.View(t.skeys[i])
		s := t.slots[string(t.pkeys[i])]
		if s == nil {
			s = &slot{part: string(t.pkeys[i]), key: strings.Clone(key), epoch: t.parts.Epoch}
			t.slots[s.part] = s
			t.touchedSlots = append(t.touchedSlots, touchedSlot{s: s})
			t.dedup.created(s, i)
			t.parts.Gauge.Rows++
			t.parts.Gauge.Entries++
			t.parts.Gauge.Parts++
			t.parts.Gauge.KeyBytes += int64(len(s.part) + len(s.key))
			continue
		}
		if s.epoch != t.parts.Epoch {
			s.epoch = t.parts.Epoch
			t.touchedSlots = append(t.touchedSlots, touchedSlot{s: s, old: s.key})
		}
		if key < s.key {
			t.parts.Gauge.KeyBytes += int64(len(key) - len(s.key))
			s.key = strings.Clone(key)
		}
	}
	t.slotGroups(c)
	return nil
}

// diffDedup records the output of the de-duplication fast path: +I for a
// new partition's row, -U old / +U new for a replaced one.
func (t *Operator) diffDedup() {
	for _, ts := range t.touchedSlots {
		switch s := ts.s; {
		case ts.old == "":
			t.addOut(s.part, s.key, 0, exec.Insert)
			t.dedup.mark(s)
		case ts.old != s.key:
			t.addOut(s.part, ts.old, 0, exec.UpdateBefore)
			t.addOut(s.part, s.key, 0, exec.UpdateAfter)
			t.dedup.mark(s)
		}
	}
}

// finishChunk drops the partitions the chunk emptied and resets the
// per-chunk scratch, dropping its references to keys.
func (t *Operator) finishChunk() {
	t.parts.Finish()
	clear(t.touchedSlots)
	t.dedup.finishChunk()
	clear(t.deltas)
	t.netter.Reset()
	clear(t.outRows)
	t.touchedSlots = t.touchedSlots[:0]
	t.deltas, t.outRows = t.deltas[:0], t.outRows[:0]
}
