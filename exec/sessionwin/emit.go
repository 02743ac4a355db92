package sessionwin

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// outRow is one output row: a session's group key and bounds, with its
// aggregate values at index idx of the chunk's old (snapshot) or new values.
type outRow struct {
	group      *keyGroup
	start, end int64
	old        bool
	idx        int32
}

// emitChanges emits the changes of the sessions the chunk touched (running
// mode): -D for each absorbed session that had been emitted, then +I for
// each new session and -U/+U for each changed one.
func (w *Agg) emitChanges(ctx context.Context, out exec.Emitter) error {
	w.out, w.ops = w.out[:0], w.ops[:0]
	for _, s := range w.touched {
		if s.into != nil && s.snap >= 0 {
			w.addOld(s, exec.Delete)
		}
	}
	w.outSess, w.outSlots = w.outSess[:0], w.outSlots[:0]
	for _, s := range w.touched {
		if s.into == nil {
			w.outSess = append(w.outSess, s)
			w.outSlots = append(w.outSlots, s.slot)
		}
	}
	if err := w.results(w.outSlots); err != nil {
		return err
	}
	gap := w.cfg.Gap
	for j, s := range w.outSess {
		row := outRow{group: s.group, start: s.start, end: s.last + gap, idx: int32(j)}
		switch {
		case s.snap < 0:
			w.out, w.ops = append(w.out, row), append(w.ops, exec.Insert)
		case w.changed(s, j):
			w.addOld(s, exec.UpdateBefore)
			w.out, w.ops = append(w.out, row), append(w.ops, exec.UpdateAfter)
		}
		s.emitted = true
	}
	return w.emitRows(ctx, out, w.ops)
}

// addOld adds the snapshot row of s with op.
func (w *Agg) addOld(s *session, op exec.Op) {
	snap := w.snaps[s.snap]
	w.out = append(w.out, outRow{group: s.group, start: snap.start, end: snap.end, old: true, idx: s.snap})
	w.ops = append(w.ops, op)
}

// changed reports whether s, output row j of the new values, differs from
// its snapshot.
func (w *Agg) changed(s *session, j int) bool {
	snap := w.snaps[s.snap]
	if snap.start != s.start || snap.end != s.last+w.cfg.Gap {
		return true
	}
	for a, spec := range w.cfg.Aggs {
		if !types.Equal(w.oldVals[a][s.snap], w.newVals[a][j], spec.Type) {
			return true
		}
	}
	return false
}

// results computes the aggregate values of slots into w.newVals.
func (w *Agg) results(slots []int32) error {
	w.newVals = vec.Resize(w.newVals, len(w.aggs))
	for a, st := range w.aggs {
		w.newVals[a] = vec.Resize(w.newVals[a], len(slots))
		if err := st.result(slots, w.newVals[a]); err != nil {
			return err
		}
	}
	return nil
}

// closeSessions closes the sessions that end at or before wm (every session
// when all is set): in EmitOnClose mode it emits them (+I, in order of their
// end), and either way it frees them.
func (w *Agg) closeSessions(ctx context.Context, wm int64, all bool, out exec.Emitter) error {
	w.outSess, w.outSlots = w.outSess[:0], w.outSlots[:0]
	for len(w.heap) > 0 && (all || w.heap[0].closeAt <= wm) {
		s := w.heap.pop()
		w.outSess = append(w.outSess, s)
		w.outSlots = append(w.outSlots, s.slot)
	}
	if len(w.outSess) == 0 {
		return nil
	}
	var err error
	if w.cfg.EmitOnClose {
		err = w.results(w.outSlots)
		if err == nil {
			w.out = w.out[:0]
			for j, s := range w.outSess {
				w.out = append(w.out, outRow{group: s.group, start: s.start, end: s.last + w.cfg.Gap, idx: int32(j)})
			}
			err = w.emitRows(ctx, out, nil)
		}
	}
	for _, s := range w.outSess {
		g := s.group
		for i, o := range g.open { // s is the first, as each group's sessions close in order
			if o == s {
				g.open = slices.Delete(g.open, i, i+1)
				break
			}
		}
		if len(g.open) == 0 {
			w.dropGroup(g)
		}
		w.freeSession(s)
	}
	clear(w.outSess)
	return err
}

// emitRows builds a batch of w.out (ops as given; nil for all inserts) and
// emits it.
func (w *Agg) emitRows(ctx context.Context, out exec.Emitter, ops []exec.Op) error {
	if len(w.out) == 0 {
		return nil
	}
	n := len(w.out)
	cols := make([]arrow.Array, 0, len(w.builders))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
		clear(w.out)
		clear(w.col)
	}()
	nk := len(w.cfg.GroupKeys)
	w.col = vec.Resize(w.col, n)
	for i, b := range w.builders {
		var err error
		switch {
		case i < nk:
			for r, row := range w.out {
				w.col[r] = row.group.key[i]
			}
			err = appendDatums(b, w.col)
		case i == nk || i == nk+1:
			tb := b.(*array.TimestampBuilder)
			tb.Reserve(n)
			for _, row := range w.out {
				v := row.start
				if i == nk+1 {
					v = row.end
				}
				tb.UnsafeAppend(arrow.Timestamp(v))
			}
		default:
			a := i - nk - 2
			for r, row := range w.out {
				if row.old {
					w.col[r] = w.oldVals[a][row.idx]
				} else {
					w.col[r] = w.newVals[a][row.idx]
				}
			}
			err = appendDatums(b, w.col)
		}
		cols = append(cols, b.NewArray())
		if err != nil {
			return err
		}
	}
	rec := array.NewRecordBatch(w.schema, cols, int64(n))
	err := out.Emit(ctx, exec.Chunk{Batch: rec, Ops: ops})
	rec.Release()
	return err
}

// appendDatums appends ds to b, a builder of the column's Arrow type,
// with one typed loop per builder type.
func appendDatums(b array.Builder, ds []types.Datum) error {
	b.Reserve(len(ds))
	switch b := b.(type) {
	case *array.Int64Builder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(d.I)
			}
		}
	case *array.BooleanBuilder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(d.I != 0)
			}
		}
	case *array.Date32Builder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(arrow.Date32(d.I))
			}
		}
	case *array.TimestampBuilder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(arrow.Timestamp(d.I))
			}
		}
	case *array.DurationBuilder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(arrow.Duration(d.I))
			}
		}
	case *array.Float64Builder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(d.F)
			}
		}
	case *array.Decimal128Builder:
		for _, d := range ds {
			if d.Null {
				b.UnsafeAppendBoolToBitmap(false)
			} else {
				b.UnsafeAppend(d.D)
			}
		}
	case *array.StringBuilder:
		size := 0
		for _, d := range ds {
			size += len(d.S)
		}
		b.ReserveData(size)
		for _, d := range ds {
			if d.Null {
				b.AppendNull()
			} else {
				b.Append(d.S)
			}
		}
	default:
		return fmt.Errorf("SESSION: no output builder for %T", b)
	}
	return nil
}
