package tempfilter

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// expiryHeap is a min-heap of kept rows by expiry; each entry knows its
// index, so a retracted row leaves in O(log n).
type expiryHeap []*entry

func (h *expiryHeap) push(e *entry) {
	e.pos = int32(len(*h))
	*h = append(*h, e)
	h.up(int(e.pos))
}

func (h *expiryHeap) pop() *entry {
	e := (*h)[0]
	h.remove(e)
	return e
}

func (h *expiryHeap) remove(e *entry) {
	s := *h
	i, last := int(e.pos), len(s)-1
	if i != last {
		s[i] = s[last]
		s[i].pos = int32(i)
	}
	s[last] = nil
	*h = s[:last]
	if i != last {
		h.down(i)
		h.up(i)
	}
}

func (h expiryHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].expiry <= h[i].expiry {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h expiryHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].expiry < h[c].expiry {
			c++
		}
		if h[i].expiry <= h[c].expiry {
			return
		}
		h.swap(i, c)
		i = c
	}
}

func (h expiryHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].pos, h[j].pos = int32(i), int32(j)
}

// Checkpoints. A kept row is one entry in the key group of the hash of all
// its columns (as the hash exchange in front of a filter over a retracting
// input routes it): key 'r' + the row's key, value its count and values as
// rowset.EncodeRow writes them. NOW() is entry 'n' (a varint) in every key
// group the instance owns; Restore takes the latest, so a restored filter
// never moves NOW() back and retracts the rows the snapshot's NOW() had
// not yet retracted.

const (
	rowPrefix = 'r'
	nowKey    = "n"
)

// delta is what changed since the last snapshot.
type delta struct {
	// tracking is set by the first Snapshot or Restore: before it the
	// store holds nothing of the filter, so nothing need be recorded.
	tracking   bool
	dirty      []*entry  // rows changed (those removed since are dead)
	gone       []goneRow // rows removed
	nowChanged bool
	// nowEverywhere is set while every key group the instance owns holds,
	// in the store, NOW() as f.now (or none, before the first): after a
	// snapshot wrote it to all of them, or from Open, before any restore.
	// A restore takes the highest of its groups', which need not agree.
	nowEverywhere bool
}

type goneRow struct {
	group int32
	key   string
}

// removed records the removal of e once snapshots are taken.
func (d *delta) removed(e *entry) {
	if d.tracking {
		d.gone = append(d.gone, goneRow{group: e.group, key: e.key})
	}
}

// ErrCorruptState is the error of a checkpoint entry that does not decode.
var ErrCorruptState = errors.New("temporal filter: damaged state")

// Snapshot writes the rows changed since the last snapshot (all of them
// the first time) and NOW() when it advanced.
func (f *Filter) Snapshot(_ context.Context, _ uint64, w exec.StateWriter) error {
	var key, val []byte
	if !f.delta.tracking {
		f.delta.tracking = true
		for _, e := range f.rows {
			e.dirty = true
			f.delta.dirty = append(f.delta.dirty, e)
		}
	}
	for _, g := range f.delta.gone {
		key = append(append(key[:0], rowPrefix), g.key...)
		if err := w.Delete(int(g.group), key); err != nil {
			return err
		}
	}
	for _, e := range f.delta.dirty {
		e.dirty = false
		if e.dead {
			continue
		}
		key = append(append(key[:0], rowPrefix), e.key...)
		val = rowset.EncodeRow(val[:0], f.cfg.Input, e.count, e.vals)
		if err := w.Put(int(e.group), key, val); err != nil {
			return err
		}
	}
	f.delta.dirty, f.delta.gone = f.delta.dirty[:0], f.delta.gone[:0]
	if f.delta.nowChanged && f.now != minNow {
		val = binary.AppendVarint(val[:0], f.now)
		for g := f.env.KeyGroups.Lo; g < f.env.KeyGroups.Hi; g++ {
			if err := w.Put(g, []byte(nowKey), val); err != nil {
				return err
			}
		}
		f.delta.nowChanged = false
		f.delta.nowEverywhere = true
	}
	return nil
}

// Restore rebuilds the rows of the key groups in groups and NOW().
func (f *Filter) Restore(ctx context.Context, r exec.StateReader, groups exec.KeyGroupRange) error {
	f.delta.tracking = true
	f.delta.nowEverywhere = false
	err := r.Scan(ctx, groups, func(group int, key, value []byte) error {
		if string(key) == nowKey {
			now, n := binary.Varint(value)
			if n <= 0 || n != len(value) {
				return fmt.Errorf("%w: NOW() in key group %d", ErrCorruptState, group)
			}
			f.now = max(f.now, now)
			return nil
		}
		if len(key) < 2 || key[0] != rowPrefix {
			return fmt.Errorf("%w: an entry with key %q in key group %d", ErrCorruptState, key, group)
		}
		count, vals, err := rowset.DecodeRow(value, f.cfg.Input)
		if err != nil {
			return fmt.Errorf("%w: the row of key group %d: %v", ErrCorruptState, group, err)
		}
		ts := vals[f.cfg.TimeCol]
		if ts.Null {
			return fmt.Errorf("%w: a kept row of key group %d has no time", ErrCorruptState, group)
		}
		e := &entry{key: string(key[1:]), vals: vals, count: count, expiry: f.expiryOf(ts.I), group: int32(group)}
		if _, dup := f.rows[e.key]; dup {
			return fmt.Errorf("%w: a row twice in key group %d", ErrCorruptState, group)
		}
		f.rows[e.key] = e
		f.heap.push(e)
		f.bytes += entryBytes(e)
		return nil
	})
	if err != nil {
		return fmt.Errorf("restoring the temporal filter: %w", err)
	}
	f.gauge()
	return nil
}
