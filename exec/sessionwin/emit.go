package sessionwin

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/arrays"
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
	if err := w.results(w.outSlots, w.newVecs); err != nil {
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
	for a := range w.cfg.Aggs {
		if !w.oldVecs[a].Same(int(s.snap), &w.newVecs[a], j) {
			return true
		}
	}
	return false
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
		err = w.results(w.outSlots, w.newVecs)
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
		} else {
			w.markDirty(g)
		}
		w.freeSession(s)
	}
	clear(w.outSess)
	return err
}

// emitScratch is the scratch of emitRows.
type emitScratch struct {
	keys       []accum.Vector // per group key column: the rows' keys
	start, end accum.Vector   // the rows' bounds
	rows       []accum.OutRow // 0, 1, ...: the rows, for keys and bounds
	aggRows    []accum.OutRow // the rows' aggregate values, old or new
	out        accum.Out
}

// emitRows builds a batch of w.out (ops as given; nil for all inserts) and
// emits it.
func (w *Agg) emitRows(ctx context.Context, out exec.Emitter, ops []exec.Op) error {
	if len(w.out) == 0 {
		return nil
	}
	n := len(w.out)
	e := &w.emit
	nk := len(w.cfg.GroupKeys)
	if len(e.keys) != nk {
		e.keys = make([]accum.Vector, nk)
		for i, ord := range w.cfg.GroupKeys {
			e.keys[i].Kind, _ = accum.KindOf(w.cfg.Input[ord])
		}
		e.start.Kind, e.end.Kind = accum.KindInt, accum.KindInt
	}
	for i := range e.keys {
		k := &e.keys[i]
		k.Resize(n)
		for r, row := range w.out {
			setDatum(k, r, row.group.key[i])
		}
	}
	e.start.Resize(n)
	e.end.Resize(n)
	e.rows, e.aggRows = e.rows[:0], e.aggRows[:0]
	for r, row := range w.out {
		e.start.I[r], e.start.Valid[r] = row.start, true
		e.end.I[r], e.end.Valid[r] = row.end, true
		e.rows = append(e.rows, accum.OutRow{J: int32(r)})
		e.aggRows = append(e.aggRows, accum.OutRow{J: row.idx, Old: row.old})
	}
	cols := make([]arrow.Array, 0, len(w.builders))
	defer func() {
		clear(w.out)
		for i := range e.keys {
			clear(e.keys[i].S)
		}
	}()
	for i, b := range w.builders {
		old, new, rows := &e.start, &e.start, e.rows
		switch {
		case i < nk:
			old, new = &e.keys[i], &e.keys[i]
		case i == nk+1:
			old, new = &e.end, &e.end
		case i > nk+1:
			old, new, rows = &w.oldVecs[i-nk-2], &w.newVecs[i-nk-2], e.aggRows
		}
		col, err := e.out.Column(w.env.Alloc, b, old, new, rows)
		if err != nil {
			arrays.Release(cols)
			return fmt.Errorf("SESSION: %w", err)
		}
		cols = append(cols, col)
	}
	return arrays.Emit(ctx, out, w.schema, cols, n, ops)
}

// setDatum sets value j of v, of d's kind, to d.
func setDatum(v *accum.Vector, j int, d types.Datum) {
	if v.Valid[j] = !d.Null; d.Null {
		return
	}
	switch v.Kind {
	case accum.KindInt:
		v.I[j] = d.I
	case accum.KindFloat:
		v.F[j] = d.F
	case accum.KindDec:
		v.D[j] = d.D
	case accum.KindStr:
		v.S[j] = d.S
	}
}
