package dataflow

import (
	"context"
	"slices"

	"github.com/eddysql/eddy/exec"
)

// coalesceRows is the size below which a hash-partitioned part waits to be
// sent with the next parts for the same consumer instance: a full batch.
// Partitioning a batch into P parts sends each consumer instance batches
// P times smaller than the producer's, and each costs its receiver a
// fixed overhead (a wake-up, an operator call, an output batch) that small
// parts — a local aggregate's partials, an aggregate's changes, a
// selective filter's survivors — can outweigh. An aggregate also emits a
// change per group a batch touches: two half batches over the same span of
// event time touch more groups in all than one full batch, so q5's
// per-auction counts emitted 37 % more changes at parallelism 2 than at 1.
// The held parts are taken in one copy when they go (exec.TakeRowsParts),
// as each would have been alone.
const coalesceRows = exec.BatchRows

// coalesceMaxHeld bounds how long a part may wait, in parts held since the
// last flush: under a steady stream of input that never lets the task
// idle, without control messages, a consumer whose parts stay small would
// otherwise wait for its rows indefinitely.
const coalesceMaxHeld = 256

// heldPart is a part waiting to be sent: rows pendSel[from:to] of c,
// which the part retains.
type heldPart struct {
	c        exec.Chunk
	from, to int
}

// sendPart sends consumer dst the rows sel of c (borrowed), or, when the
// job coalesces and they are fewer than coalesceRows, keeps them to send
// with the next parts for dst. Parts for a consumer stay in order.
func (w *outWriter) sendPart(ctx context.Context, dst int, c exec.Chunk, sel []int32) error {
	if !w.coalesce || len(sel) >= coalesceRows {
		if err := w.flushTo(ctx, dst); err != nil {
			return err
		}
		if len(sel) == c.NumRows() {
			return w.sendRetained(ctx, dst, c)
		}
		w.takeChunks, w.takeSels = append(w.takeChunks[:0], c.Keep()), append(w.takeSels[:0], sel)
		err := w.sendParts(ctx, dst, w.takeChunks, w.takeSels)
		clear(w.takeChunks)
		return err
	}
	if w.pend == nil {
		w.pend = make([][]heldPart, len(w.inboxes))
		w.pendSel = make([][]int32, len(w.inboxes))
		w.pendRows = make([]int, len(w.inboxes))
	}
	from := len(w.pendSel[dst])
	w.pendSel[dst] = append(w.pendSel[dst], sel...)
	w.pend[dst] = append(w.pend[dst], heldPart{c: c.Keep(), from: from, to: len(w.pendSel[dst])})
	w.pendRows[dst] += len(sel)
	if w.held++; w.held >= coalesceMaxHeld {
		return w.flush(ctx)
	}
	if w.pendRows[dst] >= coalesceRows {
		return w.flushTo(ctx, dst)
	}
	return nil
}

// holdWatermark keeps watermark m (the newest, replacing one held) until
// the parts waiting now have gone: a watermark may come late, never
// early, and sent at once it would flush the parts, which then could not
// be coalesced with the next chunk's. A consumer's parts go when they make
// coalesceRows rows, so m waits about one chunk.
func (w *outWriter) holdWatermark(m exec.Control) {
	if w.wmWait == nil {
		w.wmWait = make([]bool, len(w.inboxes))
	}
	w.wm = &m
	for dst, n := range w.pendRows {
		w.wmWait[dst] = w.wmWait[dst] || n > 0
	}
}

// sendWatermark sends the watermark held to every consumer.
func (w *outWriter) sendWatermark(ctx context.Context) error {
	wm := w.wm
	w.wm = nil
	clear(w.wmWait)
	for i := range w.inboxes {
		if err := w.send(ctx, i, message{ctrl: *wm}); err != nil {
			return err
		}
	}
	return nil
}

// waiting reports whether parts wait to be sent.
func (w *outWriter) waiting() bool {
	for _, n := range w.pendRows {
		if n > 0 {
			return true
		}
	}
	return false
}

// flush sends every consumer the parts waiting for it, then the watermark
// held behind them. The task calls it before a control message other than
// a watermark goes out and before it waits for input, so that coalescing
// delays rows (and watermarks) only while more input is at hand. A stage
// reading a view's changes (a MessageSource, which cannot say whether it
// would wait) flushes before every message, so it does not coalesce.
func (w *outWriter) flush(ctx context.Context) error {
	w.held = 0
	for dst := range w.pend {
		if err := w.flushTo(ctx, dst); err != nil {
			return err
		}
	}
	if w.wm != nil {
		return w.sendWatermark(ctx)
	}
	return nil
}

// flushTo sends the parts waiting for consumer dst as one chunk: a held
// chunk as it is when all its rows go to dst, else its rows taken.
func (w *outWriter) flushTo(ctx context.Context, dst int) error {
	if dst >= len(w.pend) || len(w.pend[dst]) == 0 {
		return nil
	}
	parts, sel := w.pend[dst], w.pendSel[dst]
	w.pend[dst], w.pendSel[dst], w.pendRows[dst] = parts[:0], sel[:0], 0
	var err error
	if p := parts[0]; len(parts) == 1 && p.to-p.from == p.c.NumRows() {
		// The held chunk goes whole, its reference with it.
		if err = w.send(ctx, dst, message{chunk: p.c}); err != nil {
			p.c.Batch.Release()
		}
	} else {
		// sendParts takes over the held references.
		w.takeChunks, w.takeSels = w.takeChunks[:0], w.takeSels[:0]
		for _, p := range parts {
			w.takeChunks, w.takeSels = append(w.takeChunks, p.c), append(w.takeSels, sel[p.from:p.to])
		}
		err = w.sendParts(ctx, dst, w.takeChunks, w.takeSels)
		clear(w.takeChunks)
	}
	clear(parts)
	if err != nil {
		return err
	}
	if w.wm != nil && w.wmWait[dst] {
		w.wmWait[dst] = false
		if !slices.Contains(w.wmWait, true) {
			return w.sendWatermark(ctx)
		}
	}
	return nil
}

// release drops the parts still waiting, and the watermark held (the
// task stops without sending them).
func (w *outWriter) release() {
	for dst, parts := range w.pend {
		for _, p := range parts {
			p.c.Batch.Release()
		}
		w.pend[dst], w.pendSel[dst], w.pendRows[dst] = nil, nil, 0
	}
	w.wm = nil
	clear(w.wmWait)
}
