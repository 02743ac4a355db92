package agg

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// emitChanges compares the touched groups' results before and after the
// batch (computed by apply), emits one chunk with their changes, and frees
// the groups that lost their last row.
func (h *HashAgg) emitChanges(ctx context.Context, out exec.Emitter) error {
	touched := h.touched
	if h.close == nil || !h.close.cfg.Emit { // apply computed the results
		h.changed = vec.Resize(h.changed, len(touched))
		clear(h.changed)
		for i := range h.aggs {
			accum.MarkChanged(&h.oldVecs[i], &h.newVecs[i], h.changed)
		}
	}

	h.outRows, h.ops = h.outRows[:0], h.ops[:0]
	if h.keys.mode == keysGlobal {
		switch {
		case !h.initialSent:
			h.addRow(0, false, exec.Insert)
			h.initialSent = true
		case h.changed[0]:
			h.addRow(0, true, exec.UpdateBefore)
			h.addRow(0, false, exec.UpdateAfter)
		}
		return h.emitRows(ctx, out)
	}

	if h.close != nil {
		h.closeNew()
		if h.close.cfg.Emit {
			// Nothing is emitted before the window closes; groups that
			// lost their rows are freed.
			for j, s := range touched {
				if h.newRows[j] == 0 {
					h.freeSlot(s)
				}
			}
			return nil
		}
	}
	freed := false
	for j := range touched {
		before, after := h.oldRows[j], h.newRows[j]
		switch {
		case before == 0 && after > 0:
			h.addRow(j, false, exec.Insert)
		case before > 0 && after == 0:
			h.addRow(j, true, exec.Delete)
			freed = true
		case after > 0 && h.changed[j]:
			h.addRow(j, true, exec.UpdateBefore)
			h.addRow(j, false, exec.UpdateAfter)
		case after == 0:
			freed = true // created and emptied within the batch
		}
	}
	err := h.emitRows(ctx, out)
	if freed {
		for j, s := range touched {
			if h.newRows[j] == 0 {
				h.freeSlot(s)
			}
		}
	}
	return err
}

// closeNew has the closer track the groups the batch created.
func (h *HashAgg) closeNew() {
	for j, s := range h.touched {
		if h.oldRows[j] == 0 && h.newRows[j] > 0 {
			h.close.add(s, h.firstRow[j])
		}
	}
}

// sendInitial emits a global aggregate's row (COUNT 0, other aggregates NULL
// over no rows) if it has not been emitted yet.
func (h *HashAgg) sendInitial(ctx context.Context, out exec.Emitter) error {
	if h.keys.mode != keysGlobal || h.initialSent {
		return nil
	}
	h.touched = append(h.touched[:0], 0)
	if h.pend.w != nil {
		h.save(0, -1) // copy-on-write: computing a result may change the state
	}
	b := &h.batch
	b.Reset(nil, h.touched, h.arena)
	h.newRows = append(h.newRows[:0], int64(b.Rows[0][rowsWord]))
	for i, a := range h.aggs {
		h.newVecs[i].Resize(1)
		if err := a.Result(b, h.newRows, &h.newVecs[i]); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	h.outRows, h.ops = h.outRows[:0], h.ops[:0]
	h.addRow(0, false, exec.Insert)
	h.initialSent = true
	return h.emitRows(ctx, out)
}

// addRow adds an output row for touched group j.
func (h *HashAgg) addRow(j int, old bool, op exec.Op) {
	h.outRows = append(h.outRows, accum.OutRow{J: int32(j), Old: old})
	h.ops = append(h.ops, op)
}

// emitRows builds a chunk of h.outRows (keys of h.touched, old or new
// results) and emits it.
func (h *HashAgg) emitRows(ctx context.Context, out exec.Emitter) error {
	if len(h.outRows) == 0 {
		return nil
	}
	h.keys.decode(h.touched, h.firstRow, h.keyVecs)
	return h.buildRows(ctx, out)
}

// buildRows is emitRows once h.keyVecs hold the keys of h.touched.
func (h *HashAgg) buildRows(ctx context.Context, out exec.Emitter) error {
	if len(h.outRows) == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, len(h.builders))
	for i, b := range h.builders {
		// A key column takes its values from the same vec for old and new.
		var old, new *accum.Vector
		if k := len(h.keyVecs); i < k {
			old, new = &h.keyVecs[i], &h.keyVecs[i]
		} else {
			old, new = &h.oldVecs[i-k], &h.newVecs[i-k]
		}
		col, err := h.out.Column(h.env.Alloc, b, old, new, h.outRows)
		if err != nil {
			arrays.Release(cols)
			return err
		}
		cols = append(cols, col)
	}
	return arrays.Emit(ctx, out, h.schema, cols, len(h.outRows), h.ops)
}
