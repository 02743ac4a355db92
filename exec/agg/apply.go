package agg

import (
	"fmt"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// apply integrates the batch into the state, recording in h.touched the
// groups it touched (in first-touch order), their row counts before and
// after the batch in h.oldRows and h.newRows, and their results before and
// after the batch in h.oldVecs and h.newVecs.
//
// The batch's rows are first numbered by local group (groupKeys.group),
// so that the group table and each group's state are read once per group
// the batch touches, not once per row, and the per-row work folds into
// dense arrays of the batch's size.
func (h *HashAgg) apply(c exec.Chunk) error {
	n := c.NumRows()
	h.weights = vec.Resize(h.weights, n)
	if c.Ops == nil {
		for i := range h.weights {
			h.weights[i] = 1
		}
	} else {
		for i, op := range c.Ops {
			h.weights[i] = op.Weight()
		}
	}
	ones := c.Ops == nil // every row weighs 1
	if h.close != nil {
		late, err := h.close.load(c.Batch, h.weights)
		if err != nil {
			return err
		}
		if late > 0 {
			h.env.Metrics.LateRows.Add(late)
			ones = false
		}
	}
	b := &h.batch
	h.lids = vec.Resize(h.lids, n)
	touched, first, err := h.keys.group(c.Batch, h.lids)
	if err != nil {
		return err
	}
	h.touched, h.firstRow = touched, first
	h.growSlots()
	b.Reset(h.lids, touched, h.arena)

	m := len(touched)
	if h.pend.w != nil {
		// Copy-on-write, reading the groups' rows as it goes: as at the
		// barrier.
		h.saveTouched(touched, first, b.Rows)
	} else {
		h.sink += touchRows(b.Rows)
	}
	h.oldRows, h.newRows = vec.Resize(h.oldRows, m), vec.Resize(h.newRows, m)
	delta := h.newRows
	clear(delta)
	for i, l := range b.Lids {
		delta[l] += h.weights[i]
	}
	for j, r := range b.Rows {
		old := int64(r[rowsWord])
		rows := old + delta[j]
		if rows < 0 {
			return fmt.Errorf("hash aggregate: group row count: %w", aggstate.ErrNegativeCount)
		}
		h.oldRows[j], h.newRows[j] = old, rows
		r[rowsWord] = uint64(rows)
		h.delta.mark(touched[j])
	}
	if t := h.ttl; t != nil {
		for _, s := range touched {
			t.wheel.Touch(s, t.now)
		}
	}

	if err := h.args.Load(c.Batch, h.weights, ones); err != nil {
		return err
	}
	// With EMIT ON WINDOW CLOSE nothing is emitted per batch: results are
	// computed when a window closes (emitFinal), not before and after.
	results := h.close == nil || !h.close.cfg.Emit
	// Every aggregate is updated before any new result is read: those
	// that share a DISTINCT set update it together (accum.Accumulator).
	for i, a := range h.aggs {
		h.sink += a.Touch(b)
		if results {
			h.oldVecs[i].Resize(m)
			if err := a.Result(b, h.oldRows, &h.oldVecs[i]); err != nil {
				return fmt.Errorf("hash aggregate: %w", err)
			}
		}
	}
	for i, a := range h.aggs {
		arg, w := h.args.Of(i, h.weights)
		if err := a.Update(b, w, arg); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	if !results || h.mb.on {
		return nil // a mini-batch computes the new results when it emits
	}
	for i, a := range h.aggs {
		h.newVecs[i].Resize(m)
		if err := a.Result(b, h.newRows, &h.newVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	return nil
}

// touchRows reads every cache line of the given arena rows and returns
// a value depending on them. Go has no prefetch instruction; this loop of
// a few instructions with no data-dependent branch serves as one: the
// processor runs it far ahead of the loads that miss the cache and so
// waits for many misses at once (with a million groups, their latency is
// most of a batch's cost), and the loops that follow find the rows in
// cache. The rows' addresses are computed beforehand: with the chunk
// lookup in the loop, fewer loads fit in the processor's window and a
// batch waited twice as long.
func touchRows(rows [][]uint64) int64 {
	var sum int64
	if len(rows) == 0 {
		return 0
	}
	switch stride := len(rows[0]); {
	case stride == 16:
		for _, r := range rows {
			sum += int64(r[0]) + int64(r[8])
		}
	case stride > 8:
		for _, r := range rows {
			for w := 0; w < len(r); w += 8 {
				sum += int64(r[w])
			}
		}
	default:
		for _, r := range rows {
			sum += int64(r[0])
		}
	}
	return sum
}

// growSlots makes the arena and every aggregate's columns as long as the
// group table needs.
func (h *HashAgg) growSlots() {
	n := h.keys.high()
	if n <= h.arena.Len() {
		return
	}
	h.arena.Grow(n)
	h.delta.grow(h.arena.Len())
	for _, a := range h.aggs {
		a.Grow(n)
	}
}

// freeSlot forgets the group of slot s, which lost its last row.
func (h *HashAgg) freeSlot(s int32) {
	if h.pend.w != nil {
		h.lockSaves()
		h.save(s, -1) // copy-on-write: as it was at the barrier
		h.unlockSaves()
	}
	h.deleted(s)
	h.keys.delete(s)
	if h.close != nil {
		h.close.forget(s)
	}
	if h.ttl != nil {
		h.ttl.wheel.Forget(s)
	}
	for _, a := range h.aggs {
		a.Free(s)
	}
	h.arena.Clear(s)
}

// releaseBatch drops the references the scratch holds into the batch.
func (h *HashAgg) releaseBatch() {
	h.keys.releaseBatch()
	if h.close != nil {
		h.close.release()
	}
	h.args.Release()
}

// updateStateMetrics publishes the group count and the state size estimate.
func (h *HashAgg) updateStateMetrics() {
	m := h.env.Metrics
	m.StateKeys.Store(int64(h.keys.live()))
	bytes := h.keys.stateBytes() + h.arena.Bytes() + h.delta.bytes() + h.pend.bytes()
	if h.close != nil {
		bytes += h.close.stateBytes()
	}
	if h.ttl != nil {
		bytes += h.ttl.wheel.Bytes()
	}
	for _, a := range h.aggs {
		bytes += a.Bytes()
	}
	m.StateBytes.Store(bytes)
}
