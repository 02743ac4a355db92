package exec

import (
	"fmt"
	"slices"

	"github.com/eddysql/eddy/exec/aggstate"
)

// apply integrates the batch into the state, recording in h.touched the
// groups it touched (in first-touch order), their row counts before and
// after the batch in h.oldRows and h.newRows, and their results before and
// after the batch in h.oldVecs and h.newVecs.
func (h *HashAgg) apply(c Chunk) error {
	n := c.NumRows()
	h.weights = aggResize(h.weights, n)
	for i := range h.weights {
		h.weights[i] = c.Op(i).Weight()
	}
	h.slots = aggResize(h.slots, n)
	first, known, err := h.keys.resolve(c.Batch, h.slots, h.firstRow[:0])
	if err != nil {
		return err
	}
	h.growSlots()
	if !known {
		first = h.firstRows(first)
	}
	h.firstRow = first
	h.touched = aggResize(h.touched, len(first))
	for j, i := range first {
		h.touched[j] = h.slots[i]
	}

	h.sink += h.touchRows()
	h.oldRows = aggResize(h.oldRows, len(h.touched))
	for j, s := range h.touched {
		h.oldRows[j] = int64(h.arena.Row(s)[aggRowsWord])
	}
	for i, s := range h.slots {
		r := h.arena.Row(s)
		rows := int64(r[aggRowsWord]) + h.weights[i]
		if rows < 0 {
			return fmt.Errorf("hash aggregate: group row count: %w", aggstate.ErrNegativeCount)
		}
		r[aggRowsWord] = uint64(rows)
	}
	h.newRows = aggResize(h.newRows, len(h.touched))
	for j, s := range h.touched {
		h.newRows[j] = int64(h.arena.Row(s)[aggRowsWord])
	}

	for _, a := range h.args {
		if err := a.load(c.Batch.Column(a.ord), h.weights); err != nil {
			return err
		}
	}
	for i, a := range h.aggs {
		h.sink += a.touch(h.touched)
		h.oldVecs[i].resize(len(h.touched))
		if err := a.result(h.touched, h.oldRows, &h.oldVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
		var arg *aggArgCol
		w := h.weights
		if k := h.aggArg[i]; k >= 0 {
			arg = h.args[k]
			w = arg.w
		}
		if err := a.update(h.slots, w, arg); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
		h.newVecs[i].resize(len(h.touched))
		if err := a.result(h.touched, h.newRows, &h.newVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	return nil
}

// firstRows appends to first the index of the first row of each distinct
// group of the batch, in order (when the group table could not tell them),
// marking the groups' rows with the batch's epoch.
func (h *HashAgg) firstRows(first []int32) []int32 {
	h.epoch++
	n := len(first)
	first = slices.Grow(first, len(h.slots))[:n+len(h.slots)]
	for i, s := range h.slots {
		r := h.arena.Row(s)
		first[n] = int32(i) // kept only if the row is first: no branch
		n += aggB2I(r[aggEpochWord] != h.epoch)
		r[aggEpochWord] = h.epoch
	}
	return first[:n]
}

// touchRows reads the arena row of every touched group and returns a value
// depending on them. Go has no prefetch instruction; this loop of a few
// instructions with no data-dependent branch serves as one: the processor
// runs it far ahead of the loads that miss the cache and so waits for many
// misses at once (with a million groups, their latency is most of a
// batch's cost), and the loops that follow find the rows in cache.
func (h *HashAgg) touchRows() int64 {
	chunks, stride := h.arena.Chunks(), h.arena.Stride()
	var sum int64
	for _, s := range h.touched {
		sum += int64(chunks[s>>aggstate.ChunkBits][int(s&aggstate.ChunkMask)*stride])
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
	for _, a := range h.aggs {
		a.grow(n)
	}
}

// freeSlot forgets the group of slot s, which lost its last row.
func (h *HashAgg) freeSlot(s int32) {
	h.keys.delete(s)
	for _, a := range h.aggs {
		a.free(s)
	}
	h.arena.Clear(s)
}

// releaseBatch drops the references the scratch holds into the batch.
func (h *HashAgg) releaseBatch() {
	h.keys.releaseBatch()
	for _, a := range h.args {
		a.release()
	}
}

// updateStateMetrics publishes the group count and the state size estimate.
func (h *HashAgg) updateStateMetrics() {
	m := h.env.Metrics
	m.StateKeys.Store(int64(h.keys.live()))
	bytes := h.keys.stateBytes() + h.arena.Bytes()
	for _, a := range h.aggs {
		bytes += a.stateBytes()
	}
	m.StateBytes.Store(bytes)
}
