package dataflow

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/eddysql/eddy/exec"
)

// coalesceRows is the size below which a hash-partitioned part waits to be
// sent with the next parts for the same consumer instance. Partitioning a
// batch that is small already — a local aggregate's partials, an
// aggregate's changes, a selective filter's survivors — into P parts
// sends P tiny messages, and each costs its receiver a fixed overhead (a
// wake-up, an operator call, an output batch) that can outweigh the rows;
// an aggregate receiving one coalesced batch also updates a group once
// for all the parts' rows of that group and emits one change for it, not
// one per part. Parts of coalesceRows rows or more, the common case of a
// full batch, go out at once.
const coalesceRows = 1024

// coalesceMaxHeld bounds how long a part may wait, in parts held since the
// last flush: under a steady stream of input that never lets the task
// idle, without control messages, a consumer whose parts stay small would
// otherwise wait for its rows indefinitely.
const coalesceMaxHeld = 256

// sendPart sends part (owned: retained or newly built) to consumer dst,
// or, when the job coalesces, keeps it to send with the next small parts
// for dst. Parts for a consumer stay in order.
func (w *outWriter) sendPart(ctx context.Context, dst int, part exec.Chunk) error {
	n := part.NumRows()
	if !w.coalesce || n >= coalesceRows {
		if err := w.flushTo(ctx, dst); err != nil {
			part.Batch.Release()
			return err
		}
		if err := w.send(ctx, dst, message{chunk: part}); err != nil {
			part.Batch.Release()
			return err
		}
		return nil
	}
	if w.pend == nil {
		w.pend = make([][]exec.Chunk, len(w.inboxes))
		w.pendRows = make([]int, len(w.inboxes))
	}
	w.pend[dst] = append(w.pend[dst], part)
	w.pendRows[dst] += n
	if w.held++; w.held >= coalesceMaxHeld {
		return w.flush(ctx)
	}
	if w.pendRows[dst] >= coalesceRows {
		return w.flushTo(ctx, dst)
	}
	return nil
}

// flush sends every consumer the parts waiting for it. The task calls it
// before a control message goes out and before it waits for input, so
// that coalescing delays rows only while more input is at hand. A stage
// reading a view's changes (a MessageSource, which cannot say whether it
// would wait) flushes before every message, so it does not coalesce.
func (w *outWriter) flush(ctx context.Context) error {
	w.held = 0
	for dst := range w.pend {
		if err := w.flushTo(ctx, dst); err != nil {
			return err
		}
	}
	return nil
}

// flushTo sends the parts waiting for consumer dst as one chunk.
func (w *outWriter) flushTo(ctx context.Context, dst int) error {
	if dst >= len(w.pend) || len(w.pend[dst]) == 0 {
		return nil
	}
	parts := w.pend[dst]
	w.pend[dst], w.pendRows[dst] = parts[:0], 0
	var merged exec.Chunk
	if len(parts) == 1 {
		merged = parts[0]
	} else {
		var err error
		merged, err = concatChunks(w, parts)
		for _, p := range parts {
			p.Batch.Release()
		}
		if err != nil {
			return err
		}
	}
	clear(parts)
	if err := w.send(ctx, dst, message{chunk: merged}); err != nil {
		merged.Batch.Release()
		return err
	}
	return nil
}

// release drops the parts still waiting (the task stops without sending
// them).
func (w *outWriter) release() {
	for dst, parts := range w.pend {
		for _, p := range parts {
			p.Batch.Release()
		}
		w.pend[dst], w.pendRows[dst] = nil, 0
	}
}

// concatChunks returns one chunk holding the rows of parts in order.
func concatChunks(w *outWriter, parts []exec.Chunk) (exec.Chunk, error) {
	first := parts[0].Batch
	ncols := int(first.NumCols())
	cols := make([]arrow.Array, ncols)
	arrs := make([]arrow.Array, len(parts))
	rows, ops := 0, false
	for _, p := range parts {
		rows += p.NumRows()
		ops = ops || p.Ops != nil
	}
	for i := range ncols {
		for k, p := range parts {
			arrs[k] = p.Batch.Column(i)
		}
		a, err := array.Concatenate(arrs, w.alloc)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return exec.Chunk{}, fmt.Errorf("exec: coalescing: %w", err)
		}
		cols[i] = a
	}
	out := exec.Chunk{Batch: array.NewRecordBatch(first.Schema(), cols, int64(rows))}
	for _, c := range cols {
		c.Release()
	}
	if ops {
		out.Ops = make([]exec.Op, 0, rows)
		for _, p := range parts {
			for r := range p.NumRows() {
				out.Ops = append(out.Ops, p.Op(r))
			}
		}
	}
	return out, nil
}
