package agg

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// An aggregate emits, after each chunk, a change for every group the chunk
// touched. A group touched by several chunks in a row changes as often,
// and every change costs the operators downstream: q5's running counts per
// auction and window feed a join that spent more than its aggregate did.
// In a job whose changelog no one observes change by change (a view, a
// blackhole sink: exec.Env.CoarseChangelog), a windowed aggregate over input
// that never retracts folds the changes of several chunks into one, as Flink's
// mini-batch aggregation does: it holds the groups the chunks touched,
// with their row counts and results as of its last emission, and emits
// their changes in one chunk when
//
//   - its task runs out of input (FlushDeferred), so that holding delays
//     no output beyond the input already queued;
//   - a control message comes that its output must precede: a barrier
//     (the snapshot is of emitted results), a flush, the end of input;
//
// and, after a chunk, emits the groups held since miniBatchChunks chunks
// before and the oldest beyond miniBatchGroups, oldest first: as a chunk
// brings at most a chunk's rows of new groups, a chunk then emits about as
// many changes as it would have alone, and a held change waits a bounded
// number of chunks — the aggregate's batches take as long as before, with
// no flush of every group now and then (BenchmarkCheckpointPauses
// measures per-batch times).
//
// A watermark that closes windows emits the changes of their groups first,
// as they would have gone before the windows closed without holding; the
// groups of windows still open stay held (their changes may follow a
// watermark, as rows of theirs could have), so that each of q5's hopping
// windows, open over five slides, is not emitted at each slide's close.
//
// The integrated output is the same; there are fewer changes, each group
// with one -U/+U pair (or +I) per emission instead of per chunk.

// Folding pays only when chunks touch the groups held again: where keys
// seldom repeat within a few chunks (uniform keys over millions of
// groups), every group is held once and emitted later, its state read
// again out of cache. So the aggregate checks every foldCheckChunks chunks
// how many of its chunks' group changes folding saved, and stops for good
// below foldMinSaving.
const (
	foldCheckChunks = 256
	foldMinSaving   = 0.1
)

// The bounds of a mini-batch: the chunks a group stays held at most, and
// the groups held at most.
const (
	miniBatchChunks = 32
	miniBatchGroups = 1 << 15
)

// miniBatch is what an aggregate folding its changes holds between
// emissions.
type miniBatch struct {
	on bool
	// The held groups are entries first... of slots, since, oldRows and
	// old: the oldest leave by moving first up, and the arrays are
	// compacted once first passes half of them.
	first   int
	slots   []int32        // the groups changed since their last emission, in first-touch order
	held    []uint64       // by slot: a bit set while the group is in slots
	oldRows []int64        // by held group: its row count at the last emission
	old     []accum.Vector // by aggregate, by held group: its result then
	since   []int64        // by held group: the chunk it was first held after
	chunk   int64          // chunks folded so far
	touched int64          // groups the chunks touched since the last check
	added   int64          // of those, the ones not held already
	pick    []int32        // scratch of emitHeld: the indexes of the groups emitted
}

// canFold reports whether the aggregate may fold the changes of several
// chunks: its changelog is unobserved, its input never retracts (no group
// is emptied, so a held group stays in its slot), and it is windowed,
// emitting results as they change (not only when a window closes).
//
// An aggregate without windows does not fold: its groups live on, so
// once they outnumber the cache, a held group's state and key are read
// again out of cache when it is emitted, which cost more than the changes
// saved (BenchmarkCheckpointPauses' hot keys, 100K groups: batches 1.6 to
// 1.8 times as long, with 28 % of the changes saved). A windowed
// aggregate's groups are those of the windows open, and its changes feed
// operators on the window that pay for each (q5's join).
func (h *HashAgg) canFold() bool {
	return h.env.CoarseChangelog && h.cfg.AppendOnly && h.close != nil && !h.close.cfg.Emit
}

// hold adds the groups the chunk just applied touched to those held, with
// their row counts and results before it when they were not held yet;
// then it emits the oldest, held too long or beyond the bound, and checks
// now and then that folding pays.
func (h *HashAgg) hold(ctx context.Context, out exec.Emitter) error {
	mb := &h.mb
	if n := (h.arena.Len() + 63) / 64; len(mb.held) < n {
		mb.held = append(mb.held, make([]uint64, n-len(mb.held))...) // keeping the bits set
	}
	for j, s := range h.touched {
		if mb.held[s>>6]&(1<<(s&63)) != 0 {
			continue
		}
		mb.held[s>>6] |= 1 << (s & 63)
		mb.added++
		mb.slots = append(mb.slots, s)
		mb.since = append(mb.since, mb.chunk)
		mb.oldRows = append(mb.oldRows, h.oldRows[j])
		for i := range mb.old {
			mb.old[i].Append(&h.oldVecs[i], j)
		}
	}
	mb.chunk++
	mb.touched += int64(len(h.touched))
	if mb.chunk%foldCheckChunks == 0 {
		saved := 1 - float64(mb.added)/float64(max(mb.touched, 1))
		mb.touched, mb.added = 0, 0
		if saved < foldMinSaving {
			mb.on = false
			return h.FlushDeferred(ctx, out)
		}
	}
	n := mb.first // past the oldest groups, held too long or too many
	for n < len(mb.slots) && (mb.since[n] <= mb.chunk-miniBatchChunks || len(mb.slots)-n > miniBatchGroups) {
		n++
	}
	if n == mb.first {
		return nil
	}
	mb.pick = mb.pick[:0]
	for j := mb.first; j < n; j++ {
		mb.pick = append(mb.pick, int32(j))
	}
	err := h.emitPicked(ctx, out)
	mb.dropOldest(n)
	return err
}

// FlushDeferred implements exec.OutputDeferrer: it emits the changes of the
// groups held since the last emission, one chunk for all of them.
func (h *HashAgg) FlushDeferred(ctx context.Context, out exec.Emitter) error {
	return h.emitHeld(ctx, out, nil)
}

// emitHeld emits the changes of the groups held that emit picks (by index
// among the held, and slot; nil: all of them), in one chunk; the others
// stay held. A held group without rows (its chunks' rows were late for its
// window) is freed.
func (h *HashAgg) emitHeld(ctx context.Context, out exec.Emitter, emit func(j int, s int32) bool) error {
	mb := &h.mb
	if len(mb.slots) == mb.first {
		return nil
	}
	mb.pick = mb.pick[:0]
	for j := mb.first; j < len(mb.slots); j++ {
		if emit == nil || emit(j, mb.slots[j]) {
			mb.pick = append(mb.pick, int32(j))
		}
	}
	if len(mb.pick) == 0 {
		return nil
	}
	all := len(mb.pick) == len(mb.slots)-mb.first
	err := h.emitPicked(ctx, out)
	if all {
		mb.reset()
	} else {
		mb.drop(mb.pick)
	}
	return err
}

// emitPicked emits the changes of the held groups at indexes mb.pick.
func (h *HashAgg) emitPicked(ctx context.Context, out exec.Emitter) error {
	mb := &h.mb
	h.touched = h.touched[:0]
	for i := range h.oldVecs {
		h.oldVecs[i].Resize(0)
	}
	h.oldRows = h.oldRows[:0]
	for _, j := range mb.pick {
		h.touched = append(h.touched, mb.slots[j])
		h.oldRows = append(h.oldRows, mb.oldRows[j])
		for i := range h.oldVecs {
			h.oldVecs[i].Append(&mb.old[i], int(j))
		}
	}
	return h.emitTouched(ctx, out)
}

// emitTouched emits the changes of the groups h.touched, whose row counts
// and results at their last emission are h.oldRows and h.oldVecs, and frees
// those left without rows.
func (h *HashAgg) emitTouched(ctx context.Context, out exec.Emitter) error {
	m := len(h.touched)
	if h.pend.w != nil {
		// Copy-on-write before computing results: a result may change a
		// group's state (a sketch caches its estimate).
		h.saveTouched(h.touched, nil, nil)
	}
	b := &h.batch
	b.Reset(nil, h.touched, h.arena)
	h.sink += touchRows(b.Rows) // the groups' rows, their misses overlapped
	h.newRows = vec.Resize(h.newRows, m)
	for j, r := range b.Rows {
		h.newRows[j] = int64(r[rowsWord])
	}
	h.changed = vec.Resize(h.changed, m)
	clear(h.changed)
	for i, a := range h.aggs {
		h.sink += a.Touch(b)
		h.newVecs[i].Resize(m)
		if err := a.Result(b, h.newRows, &h.newVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
		accum.MarkChanged(&h.oldVecs[i], &h.newVecs[i], h.changed)
	}
	h.keys.decodeSlots(h.touched, h.keyVecs)
	h.outRows, h.ops = h.outRows[:0], h.ops[:0]
	empty := false
	for j := range h.touched {
		switch before, after := h.oldRows[j], h.newRows[j]; {
		case after == 0:
			empty = true
		case before == 0:
			h.addRow(j, false, exec.Insert)
		case h.changed[j]:
			h.addRow(j, true, exec.UpdateBefore)
			h.addRow(j, false, exec.UpdateAfter)
		}
	}
	err := h.buildRows(ctx, out)
	if empty {
		for j, s := range h.touched {
			if h.newRows[j] == 0 {
				h.freeSlot(s)
			}
		}
	}
	return err
}

// flushBefore emits the changes held that control message m must follow:
// before a watermark, those of the groups it closes; before any other
// message, all of them.
func (h *HashAgg) flushBefore(ctx context.Context, m exec.Control, out exec.Emitter) error {
	mb := &h.mb
	switch {
	case !mb.on:
		return nil
	case m.Kind != exec.Watermark:
		return h.FlushDeferred(ctx, out)
	case m.Idle, !h.close.anyDue(m.Watermark):
		return nil
	}
	return h.emitHeld(ctx, out, func(_ int, s int32) bool { return h.close.closesBy(s, m.Watermark) })
}

// dropOldest forgets the held groups before index n.
func (mb *miniBatch) dropOldest(n int) {
	for _, s := range mb.slots[mb.first:n] {
		mb.held[s>>6] &^= 1 << (s & 63)
	}
	mb.first = n
	if live := len(mb.slots) - n; n >= 1024 && n > live {
		copy(mb.slots, mb.slots[n:])
		copy(mb.since, mb.since[n:])
		copy(mb.oldRows, mb.oldRows[n:])
		mb.slots, mb.since, mb.oldRows = mb.slots[:live], mb.since[:live], mb.oldRows[:live]
		for i := range mb.old {
			mb.old[i].DropFirst(n)
		}
		mb.first = 0
	}
}

// drop forgets the held groups at indexes picked (ascending), keeping the
// others in order, from index 0.
func (mb *miniBatch) drop(picked []int32) {
	k, next := 0, 0
	for j := mb.first; j < len(mb.slots); j++ {
		s := mb.slots[j]
		if next < len(picked) && int(picked[next]) == j {
			next++
			mb.held[s>>6] &^= 1 << (s & 63)
			continue
		}
		mb.slots[k], mb.since[k], mb.oldRows[k] = s, mb.since[j], mb.oldRows[j]
		for i := range mb.old {
			mb.old[i].Move(k, j)
		}
		k++
	}
	mb.slots, mb.since, mb.oldRows, mb.first = mb.slots[:k], mb.since[:k], mb.oldRows[:k], 0
	for i := range mb.old {
		mb.old[i].Truncate(k)
	}
}

// reset forgets the groups held.
func (mb *miniBatch) reset() {
	for _, s := range mb.slots[mb.first:] {
		mb.held[s>>6] &^= 1 << (s & 63)
	}
	mb.slots, mb.since, mb.oldRows, mb.first = mb.slots[:0], mb.since[:0], mb.oldRows[:0], 0
	for i := range mb.old {
		mb.old[i].Resize(0)
	}
}
