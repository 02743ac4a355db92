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

// partition is the state of one partition outside the de-duplication
// fast path: its rows in a tree.
type partition struct {
	key   string // the encoded partition key
	tree  ordtree.Tree
	epoch uint64 // the last chunk that touched the partition
	index int32  // the partition's position in Operator.touched during that chunk
}

// slot is the state of one partition in the de-duplication fast path:
// its only row.
type slot struct {
	part   string // the encoded partition key
	key    string // the sort key of the partition's row
	old    string // during a chunk that touched the slot: key before the chunk
	hadOld bool   // during a chunk that touched the slot: whether it existed before
	epoch  uint64 // the last chunk that touched the slot
}

// apply applies every row of c to its partition's tree in order and records
// the changes in t.deltas.
func (t *Operator) apply(c exec.Chunk) error {
	var p *partition
	for i := range t.skeys {
		if p == nil || !bytes.Equal(t.pkeys[i], t.pkeys[i-1]) {
			p = t.partitionOf(t.pkeys[i])
		}
		key := ordtree.KeyOf(ordtree.View(t.skeys[i]))
		w := c.Op(i).Weight()
		if t.cfg.AppendOnly {
			if err := t.addBounded(p, key, w); err != nil {
				return err
			}
			continue
		}
		stored, _, err := p.tree.Add(key, w, 0, 0, &t.gauge)
		if err != nil {
			return rowError(err)
		}
		t.deltas = append(t.deltas, ordtree.Delta{Part: p.index, Key: stored.Key, W: w})
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

// partitionOf returns the partition with encoded key pk, creating it, and
// marks it touched by the current chunk.
func (t *Operator) partitionOf(pk []byte) *partition {
	p := t.parts[string(pk)]
	if p == nil {
		p = &partition{key: string(pk)}
		t.parts[p.key] = p
		t.gauge.Parts++
		t.gauge.KeyBytes += int64(len(p.key))
	}
	if p.epoch != t.epoch {
		p.epoch = t.epoch
		p.index = int32(len(t.touched))
		t.touched = append(t.touched, p)
	}
	return p
}

// addBounded adds a row to a partition that keeps only its top Limit rows:
// a row that sorts at or after the last of a full partition cannot enter
// and is dropped; otherwise it enters and, if the partition was full, one
// copy of its last row leaves.
func (t *Operator) addBounded(p *partition, key ordtree.Key, w int64) error {
	if w < 0 {
		return errRetraction
	}
	tr := &p.tree
	var evict ordtree.Key
	if tr.Total >= t.cfg.Limit {
		last := tr.Last()
		if key.Compare(last.Key) >= 0 {
			return nil
		}
		evict = last.Key
	}
	stored, _, err := tr.Add(key, 1, 0, 0, &t.gauge)
	if err != nil {
		return rowError(err)
	}
	t.deltas = append(t.deltas, ordtree.Delta{Part: p.index, Key: stored.Key, W: 1})
	if tr.Total > t.cfg.Limit {
		if _, _, err := tr.Add(evict, -1, 0, 0, &t.gauge); err != nil {
			return rowError(err)
		}
		t.deltas = append(t.deltas, ordtree.Delta{Part: p.index, Key: evict, W: -1})
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
			s = &slot{part: string(t.pkeys[i]), key: strings.Clone(key), epoch: t.epoch}
			t.slots[s.part] = s
			t.touchedSlots = append(t.touchedSlots, s)
			t.gauge.Rows++
			t.gauge.Entries++
			t.gauge.Parts++
			t.gauge.KeyBytes += int64(len(s.part) + len(s.key))
			continue
		}
		if s.epoch != t.epoch {
			s.epoch, s.old, s.hadOld = t.epoch, s.key, true
			t.touchedSlots = append(t.touchedSlots, s)
		}
		if key < s.key {
			t.gauge.KeyBytes += int64(len(key) - len(s.key))
			s.key = strings.Clone(key)
		}
	}
	return nil
}

// diffDedup records the output of the de-duplication fast path: +I for a
// new partition's row, -U old / +U new for a replaced one.
func (t *Operator) diffDedup() {
	for _, s := range t.touchedSlots {
		switch {
		case !s.hadOld:
			t.addOut(s.part, s.key, 0, exec.Insert)
		case s.old != s.key:
			t.addOut(s.part, s.old, 0, exec.UpdateBefore)
			t.addOut(s.part, s.key, 0, exec.UpdateAfter)
		}
	}
}

// finishChunk drops the partitions the chunk emptied and resets the
// per-chunk scratch, dropping its references to keys.
func (t *Operator) finishChunk() {
	for _, p := range t.touched {
		if p.tree.Total == 0 {
			delete(t.parts, p.key)
			t.gauge.Parts--
			t.gauge.KeyBytes -= int64(len(p.key))
		}
	}
	for _, s := range t.touchedSlots {
		s.old, s.hadOld = "", false
	}
	clear(t.touched)
	clear(t.touchedSlots)
	clear(t.deltas)
	t.netter.Reset()
	clear(t.outRows)
	t.touched, t.touchedSlots = t.touched[:0], t.touchedSlots[:0]
	t.deltas, t.outRows = t.deltas[:0], t.outRows[:0]
}
