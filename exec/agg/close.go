package agg

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// WindowClose makes a hash aggregate windowed: one of its group keys tells
// when a group's window closes, at the watermark key + Offset. A closed
// group can receive no more rows (a row that would reopen it is late: it
// is dropped and counted), so its state is freed; with Emit (EMIT ON
// WINDOW CLOSE) the group's final row is emitted then, once, as an insert,
// and nothing is emitted before.
type WindowClose struct {
	// Key is the index in GroupKeys of the closing column (window_end, or
	// window_start with Offset the window size). It must be integer-like
	// (TIMESTAMP in milliseconds, BIGINT).
	Key    int
	Offset int64
	Emit   bool
}

// closeChunk is how many groups a closing emits per chunk.
const closeChunk = 4096

// noClose marks a slot that is not waiting to close.
const noClose = int64(-1 << 63)

// closer tracks when each group of a windowed hash aggregate closes.
// Groups are indexed by close time; the distinct close times (a few per
// window size in flight) are in a min-heap, so a watermark finds the
// groups it closes without scanning the others. A slot's entry may be
// stale (the group lost its last row and the slot was reused): slotAt says
// which close time the slot's current group waits for.
type closer struct {
	cfg    WindowClose
	ord    int   // input ordinal of the closing column
	wm     int64 // the last watermark applied
	times  closeTimes
	bySlot map[int64][]int32 // close time → slots (possibly stale)
	slotAt []int64           // by slot: its close time, or noClose
	listed []int64           // by slot: the close time it is listed under in bySlot, or noClose
	listN  int               // entries in bySlot

	vals  []int64 // the closing column of the batch being applied
	valid arrow.Array
	buf   []int64
}

func newCloser(cfg WindowClose, ord int) *closer {
	return &closer{cfg: cfg, ord: ord, wm: -1 << 63, bySlot: map[int64][]int32{}}
}

// load reads the closing column of a batch and zeroes the weight of every
// row whose window has already closed, counting them as late. It returns
// the number of late rows.
func (c *closer) load(rec arrow.RecordBatch, weights []int64) (int64, error) {
	arr := rec.Column(c.ord)
	vals, buf, err := accum.IntValues(arr, c.buf)
	c.buf = buf
	if err != nil {
		return 0, fmt.Errorf("window close column %d: %w", c.ord, err)
	}
	c.vals, c.valid = vals, nil
	if arr.NullN() > 0 {
		c.valid = arr
	}
	var late int64
	limit := c.wm - c.cfg.Offset // a row is late when its value <= limit
	if c.wm == -1<<63 {          // no watermark yet (Open refuses negative offsets)
		return 0, nil
	}
	for i, v := range vals {
		if v <= limit && weights[i] != 0 && (c.valid == nil || c.valid.IsValid(i)) {
			weights[i] = 0
			late++
		}
	}
	return late, nil
}

// add registers slot, a group created by the batch whose first row is
// row, to close at its closing value + offset.
func (c *closer) add(slot, row int32) {
	if c.valid != nil && c.valid.IsNull(int(row)) {
		return // a NULL window never closes
	}
	c.addAt(slot, c.vals[row]+c.cfg.Offset)
}

// addAt registers slot to close at time t.
func (c *closer) addAt(slot int32, t int64) {
	for int(slot) >= len(c.slotAt) {
		c.slotAt = append(c.slotAt, noClose)
		c.listed = append(c.listed, noClose)
	}
	c.slotAt[slot] = t
	if c.listed[slot] == t {
		return // a group of this slot was listed under t already (retracted, then recreated)
	}
	list, ok := c.bySlot[t]
	if !ok {
		heap.Push(&c.times, t)
	}
	c.bySlot[t] = append(list, slot)
	c.listed[slot] = t
	c.listN++
}

// forget marks slot as not waiting to close (its group was freed).
func (c *closer) forget(slot int32) {
	if int(slot) < len(c.slotAt) {
		c.slotAt[slot] = noClose
	}
}

// due returns, and removes from the index, the live groups that close at
// watermark wm, in order of close time; it records wm.
func (c *closer) due(wm int64, dst []int32) []int32 {
	if wm > c.wm {
		c.wm = wm
	}
	for len(c.times) > 0 && c.times[0] <= wm {
		t := heap.Pop(&c.times).(int64)
		list := c.bySlot[t]
		for _, s := range list {
			if c.listed[s] == t {
				c.listed[s] = noClose
			}
			if c.slotAt[s] == t {
				c.slotAt[s] = noClose
				dst = append(dst, s)
			}
		}
		c.listN -= len(list)
		delete(c.bySlot, t)
	}
	return dst
}

// anyDue reports whether a group closes at watermark wm.
func (c *closer) anyDue(wm int64) bool {
	return len(c.times) > 0 && c.times[0] <= wm
}

// closesBy reports whether group slot s closes at watermark wm, or waits
// for no close at all (a group of late rows only, or of a NULL time).
func (c *closer) closesBy(s int32, wm int64) bool {
	return int(s) >= len(c.slotAt) || c.slotAt[s] <= wm
}

// release drops the references into the batch.
func (c *closer) release() { c.vals, c.valid = nil, nil }

// stateBytes estimates the index's memory: the per-slot close times, the
// listed slots, and a map entry and heap element per close time.
func (c *closer) stateBytes() int64 {
	return int64(len(c.slotAt))*16 + int64(c.listN)*4 + int64(len(c.times))*(48+8)
}

// closeTimes is a min-heap of close times.
type closeTimes []int64

func (h closeTimes) Len() int           { return len(h) }
func (h closeTimes) Less(i, j int) bool { return h[i] < h[j] }
func (h closeTimes) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *closeTimes) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *closeTimes) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// closeWindows closes the groups whose window the watermark wm passed:
// with EMIT ON WINDOW CLOSE it emits their final rows as inserts, in
// chunks of closeChunk groups, then frees them.
func (h *HashAgg) closeWindows(ctx context.Context, wm int64, out exec.Emitter) error {
	h.closing = h.close.due(wm, h.closing[:0])
	if h.pend.w != nil {
		// Copy-on-write before emitFinal: computing a result may change
		// a group's state (a sketch caches its estimate).
		h.saveTouched(h.closing, nil, nil)
	}
	var err error
	for lo := 0; lo < len(h.closing); lo += closeChunk {
		part := h.closing[lo:min(lo+closeChunk, len(h.closing))]
		if h.close.cfg.Emit && err == nil {
			err = h.emitFinal(ctx, part, out)
		}
		// Closed groups are freed even after an error, so that the state
		// stays consistent with the close index.
		for _, s := range part {
			h.freeSlot(s)
		}
	}
	h.updateStateMetrics()
	return err
}

// emitFinal emits the current rows of the groups in slots as inserts.
func (h *HashAgg) emitFinal(ctx context.Context, slots []int32, out exec.Emitter) error {
	m := len(slots)
	h.touched = append(h.touched[:0], slots...)
	b := &h.batch
	b.Reset(nil, h.touched, h.arena)
	h.newRows = vec.Resize(h.newRows, m)
	for j, r := range b.Rows {
		h.newRows[j] = int64(r[rowsWord])
	}
	for i, a := range h.aggs {
		h.sink += a.Touch(b)
		h.newVecs[i].Resize(m)
		if err := a.Result(b, h.newRows, &h.newVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	h.keys.decodeSlots(h.touched, h.keyVecs)
	h.outRows, h.ops = h.outRows[:0], h.ops[:0]
	for j := range slots {
		if h.newRows[j] > 0 {
			h.addRow(j, false, exec.Insert)
		}
	}
	return h.buildRows(ctx, out)
}
