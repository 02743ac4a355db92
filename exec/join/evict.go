package join

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
)

var errWindowedRetraction = errors.New("hash join: an outer interval or window join received a retraction; its inputs must only append")

// deadlineHeap orders a windowed join side's rows by the watermark that
// frees them. An entry is stale once its row was retracted: the row id
// may since hold another row, with a deadline of its own. Each tracked
// row gets a new generation (side.gen), and an entry frees its row only
// if it carries the row's current one.
type deadlineHeap struct{ items []deadlineItem }

type deadlineItem struct {
	at  int64
	id  int32
	gen uint32 // the generation of id it was pushed for
}

// push adds it. The heap is a binary min-heap on at, written for its
// one type: container/heap's interface calls were a sixth of q7's CPU.
func (h *deadlineHeap) push(it deadlineItem) {
	h.items = append(h.items, it)
	h.up(len(h.items) - 1)
}

// pop removes and returns the entry of the earliest deadline.
func (h *deadlineHeap) pop() deadlineItem {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

// init orders the entries into a heap.
func (h *deadlineHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *deadlineHeap) up(i int) {
	items := h.items
	it := items[i]
	for i > 0 {
		p := (i - 1) / 2
		if items[p].at <= it.at {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = it
}

func (h *deadlineHeap) down(i int) {
	items := h.items
	n := len(items)
	it := items[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && items[r].at < items[c].at {
			c = r
		}
		if it.at <= items[c].at {
			break
		}
		items[i] = items[c]
		i = c
	}
	items[i] = it
}

// staleCompactMin is the fewest stale entries a side's deadline heap
// keeps before it drops them all: the heap is rebuilt (linear in its
// size) when at least this many and half its entries are stale, so that
// retractions cost amortized constant time and the heap at most twice the
// live rows' entries (plus this many).
const staleCompactMin = 1024

// track records the deadline of row id of a windowed join side, of time
// t.
func (s *side) track(id int32, t int64) {
	for int(id) >= len(s.gen) {
		s.gen = append(s.gen, 0)
	}
	s.gen[id]++ // wraps after 2^32 rows of one id, long after a stale entry of it is gone
	s.deadline.push(deadlineItem{at: t + s.offset, id: id, gen: s.gen[id]})
}

// untrack forgets the deadline of row id, retracted: its heap entry is
// stale from now on.
func (s *side) untrack(id int32) {
	s.gen[id]++
	s.stale++
	if h := &s.deadline; s.stale >= staleCompactMin && 2*s.stale >= len(h.items) {
		live := h.items[:0]
		for _, it := range h.items {
			if it.gen == s.gen[it.id] {
				live = append(live, it)
			}
		}
		h.items = live
		h.init()
		s.stale = 0
	}
}

// popDue removes the entries whose deadline is below wm and appends the
// ids of the rows they free to ids, skipping stale entries.
func (s *side) popDue(wm int64, ids []int32) []int32 {
	h := &s.deadline
	for len(h.items) > 0 && h.items[0].at < wm {
		it := h.pop()
		if it.gen != s.gen[it.id] {
			s.stale--
			continue
		}
		ids = append(ids, it.id)
	}
	return ids
}

// timeValue reads row i of a TIMESTAMP column as milliseconds.
func timeValue(a arrow.Array, i int) int64 {
	if ts, ok := a.(*array.Timestamp); ok {
		return int64(ts.Value(i))
	}
	return a.(*array.Int64).Value(i)
}

// evict frees, on both sides of a windowed join, the rows no later row can
// match once the watermark is wm, and emits the outer join's padding for
// those that never matched.
func (j *HashJoin) evict(ctx context.Context, wm int64, out exec.Emitter) error {
	for in, s := range j.sides {
		ids := s.popDue(wm, nil)
		if len(ids) == 0 {
			continue
		}
		var pad []int32
		if s.padded {
			for _, id := range ids {
				if s.matches[id] == 0 {
					pad = append(pad, id)
				}
			}
		}
		if len(pad) > 0 {
			if err := j.emitPadded(ctx, in, s, pad, out); err != nil {
				return err
			}
		}
		var hs []uint64
		if s.idx.live > 0 {
			var err error
			if hs, err = s.storedHashes(j.env.Alloc, ids); err != nil {
				return fmt.Errorf("hash join: %w", err)
			}
		}
		for k, id := range ids {
			var h uint64
			if hs != nil {
				h = hs[k]
			}
			s.removeRow(s.bucketOf[id], id, h)
		}
	}
	j.gauge()
	return nil
}

// emitPadded emits the rows ids of side s (input in), each padded with
// NULLs for the other side, as inserts.
func (j *HashJoin) emitPadded(ctx context.Context, in int, s *side, ids []int32, out exec.Emitter) error {
	alloc := j.env.Alloc
	other := j.sides[1-in]
	var mine, nulls []arrow.Array
	for k := range s.types {
		mine = append(mine, s.store.Gather(alloc, k, ids))
	}
	for _, t := range other.types {
		nulls = append(nulls, array.MakeArrayOfNull(alloc, t.Arrow(), len(ids)))
	}
	cols := append(mine, nulls...)
	if in == 1 {
		cols = append(nulls, mine...)
	}
	return arrays.Emit(ctx, out, j.schema, cols, len(ids), nil)
}
