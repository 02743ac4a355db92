package sessionwin

import (
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// keyGroup is one group key's open sessions, ordered by start. They are
// disjoint: a session's window_end (last+gap) is at most the next one's
// start, otherwise a row would have bridged them.
type keyGroup struct {
	mapKey string        // the encoded key (see encodeKeys)
	key    []types.Datum // the key's values, strings owned
	open   []*session

	// Checkpoints (see checkpoint.go).
	kg     int32 // its key group, once stored
	stored bool  // a snapshot put it (or it was restored): dropping it deletes its entry
	dirty  bool  // it changed since the last snapshot, and is in delta.groups
}

// session is one open session. Its aggregates live in the accumulators'
// slot slot.
type session struct {
	group       *keyGroup
	start, last int64 // the times of its first and last row
	slot        int32
	heapIdx     int    // position in the close heap, -1 when not in it
	closeAt     int64  // its window_end when last placed in the heap: the heap's key
	seq         uint64 // creation number: ties in the close heap go to the older
	emitted     bool   // running mode: its current row is in the output

	// Per chunk.
	epoch uint64   // the last chunk that touched it
	into  *session // the session that absorbed it in this chunk, if any
	snap  int32    // running mode: its old row in the chunk's snapshots, -1 for none
	lid   int32    // its local group in the chunk's accum.Batch, if it survived
}

// sessionBytes estimates a session's own memory beyond its accumulators: the
// struct, its place in its group's list and in the heap.
const sessionBytes = int64(unsafe.Sizeof(session{})) + 16

// scratch is the per-chunk state of Agg, reused across
// chunks.
type scratch struct {
	keyBufs   [][]byte   // per row: its encoded group key
	rowSess   []*session // per row: the session it was placed in, nil if dropped
	touched   []*session // sessions the chunk touched, in order
	merged    []*session // sessions a merge absorbed
	snaps     []snapshot // running mode: old rows of touched sessions
	snapSlots []int32
	batch     accum.Batch
	lids      []int32        // per row: the local group of its final session (0 if dropped)
	weights   []int64        // per row: 1, or 0 if dropped
	lslots    []int32        // by local group: its session's slot
	counts    []int64        // by local group: its session's rows
	oldVecs   []accum.Vector // per aggregate: the snapshots' values
	newVecs   []accum.Vector // per aggregate: the values of rows to emit
	outSlots  []int32
	outSess   []*session
	out       []outRow
	ops       []exec.Op
	emit      emitScratch
}

// snapshot is a session's bounds as last emitted.
type snapshot struct {
	start, end int64
}

// place puts every row of the batch into a session: it creates, extends
// and merges sessions, recording each row's session in rowSess and the
// absorbed sessions in merged. Accumulators are left to apply.
func (w *Agg) place(batch arrow.RecordBatch, times *array.Timestamp) error {
	n := int(batch.NumRows())
	w.epoch++
	w.touched, w.merged = w.touched[:0], w.merged[:0]
	w.snaps, w.snapSlots = w.snaps[:0], w.snapSlots[:0]
	w.rowSess = vec.Resize(w.rowSess, n)
	if len(w.cfg.GroupKeys) > 0 {
		if err := w.encodeKeys(batch); err != nil {
			return err
		}
	}
	vals := times.TimestampValues()
	nulls := times.NullN() > 0
	dropped := 0
	var g *keyGroup
	for i, t := range vals {
		w.rowSess[i] = nil
		if nulls && times.IsNull(i) {
			dropped++
			continue
		}
		if len(w.cfg.GroupKeys) > 0 {
			g = w.group(batch, i, w.keyBufs[i])
		} else if g == nil {
			g = w.group(batch, i, nil)
		}
		w.rowSess[i] = w.placeRow(g, int64(t))
	}
	w.dropped.Add(int64(dropped))
	return nil
}

// placeRow puts a row at time t into a session of g and returns it.
func (w *Agg) placeRow(g *keyGroup, t int64) *session {
	gap := w.cfg.Gap
	open := g.open
	// lo: the first session that ends after t; the row reaches it and every
	// following one that starts less than gap after t.
	lo, hi := 0, len(open)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if open[m].last+gap > t {
			hi = m
		} else {
			lo = m + 1
		}
	}
	j := lo
	for j < len(open) && open[j].start < t+gap {
		j++
	}
	if j == lo {
		s := w.newSession(g, t)
		g.open = slices.Insert(open, lo, s)
		return s
	}
	y := open[lo]
	w.touch(y)
	for _, x := range open[lo+1 : j] {
		w.touch(x)
		x.into = y
		y.last = max(y.last, x.last)
		w.merged = append(w.merged, x)
	}
	g.open = slices.Delete(open, lo+1, j)
	y.start, y.last = min(y.start, t), max(y.last, t)
	return y
}

// newSession returns a new session of g holding one row at time t.
func (w *Agg) newSession(g *keyGroup, t int64) *session {
	w.seq++
	s := w.allocSession(g, t, t, w.seq)
	s.epoch = w.epoch
	w.touched = append(w.touched, s)
	w.markDirty(g)
	return s
}

// allocSession returns a session of g from start to last numbered seq,
// with a fresh slot of the accumulators. It is in no list nor the heap.
func (w *Agg) allocSession(g *keyGroup, start, last int64, seq uint64) *session {
	var s *session
	if k := len(w.pool); k > 0 {
		s, w.pool = w.pool[k-1], w.pool[:k-1]
	} else {
		s = new(session)
	}
	*s = session{group: g, start: start, last: last, slot: w.slots.Alloc(), heapIdx: -1, seq: seq, snap: -1}
	if high := w.slots.High(); high > w.arena.Len() {
		w.arena.Grow(high)
		for _, a := range w.aggs {
			a.Grow(high)
		}
	}
	return s
}

// touch records that the chunk changes s; in running mode it snapshots the
// bounds of an emitted session (its values are snapshot by apply).
func (w *Agg) touch(s *session) {
	if s.epoch == w.epoch {
		return
	}
	s.epoch, s.into, s.snap = w.epoch, nil, -1
	w.markDirty(s.group)
	if s.emitted && !w.cfg.EmitOnClose {
		s.snap = int32(len(w.snaps))
		w.snaps = append(w.snaps, snapshot{start: s.start, end: s.last + w.cfg.Gap})
		w.snapSlots = append(w.snapSlots, s.slot)
	}
	w.touched = append(w.touched, s)
}

// final returns the session s ended up in after the chunk's merges.
func final(s *session) *session {
	for s.into != nil {
		s = s.into
	}
	return s
}

// apply updates the accumulators for the chunk placed by place: it first
// snapshots the values of the emitted sessions the chunk touched, then
// merges the absorbed sessions into their survivors and adds every row to
// its final session. Accumulators are mergeable, so the order of these steps
// does not change the results.
func (w *Agg) apply(batch arrow.RecordBatch) error {
	if len(w.snapSlots) > 0 {
		if err := w.results(w.snapSlots, w.oldVecs); err != nil {
			return err
		}
	}
	for _, x := range w.merged {
		y := final(x)
		w.arena.Row(y.slot)[rowsWord] += w.arena.Row(x.slot)[rowsWord]
		for _, m := range w.mergers {
			if err := m.Merge(y.slot, x.slot); err != nil {
				return err
			}
		}
	}
	// The surviving sessions the chunk touched are its local groups; a
	// dropped row weighs nothing.
	w.lslots = w.lslots[:0]
	for _, s := range w.touched {
		if s.into == nil {
			s.lid = int32(len(w.lslots))
			w.lslots = append(w.lslots, s.slot)
		}
	}
	if len(w.lslots) == 0 {
		return nil
	}
	w.lids, w.weights = vec.Resize(w.lids, len(w.rowSess)), vec.Resize(w.weights, len(w.rowSess))
	ones := true // every row weighs 1: none was dropped
	for i, s := range w.rowSess {
		w.lids[i], w.weights[i] = 0, 0
		if s != nil {
			w.lids[i], w.weights[i] = final(s).lid, 1
		} else {
			ones = false
		}
	}
	b := &w.batch
	b.Reset(w.lids, w.lslots, w.arena)
	for i, l := range w.lids {
		b.Rows[l][rowsWord] += uint64(w.weights[i])
	}
	if err := w.args.Load(batch, w.weights, ones); err != nil {
		return err
	}
	defer w.args.Release()
	for i, a := range w.aggs {
		arg, wts := w.args.Of(i, w.weights)
		if err := a.Update(b, wts, arg); err != nil {
			return err
		}
	}
	return nil
}

// results computes the aggregate values of the sessions in slots into
// vecs, one per aggregate.
func (w *Agg) results(slots []int32, vecs []accum.Vector) error {
	b := &w.batch
	b.Reset(nil, slots, w.arena)
	w.counts = vec.Resize(w.counts, len(slots))
	for j, r := range b.Rows {
		w.counts[j] = int64(r[rowsWord])
	}
	for i, a := range w.aggs {
		v := &vecs[i]
		v.Resize(len(slots))
		if err := a.Result(b, w.counts, v); err != nil {
			return err
		}
	}
	return nil
}

// settle ends a chunk: it frees the sessions merges absorbed and puts the
// surviving touched sessions in their place in the close heap.
func (w *Agg) settle() {
	for _, s := range w.touched {
		if s.into != nil {
			w.heap.remove(s)
			w.freeSession(s)
			continue
		}
		s.closeAt = s.last + w.cfg.Gap
		w.heap.update(s)
	}
	clear(w.touched)
	clear(w.merged)
	clear(w.rowSess)
	w.touched, w.merged = w.touched[:0], w.merged[:0]
}

// freeSession frees the accumulators of s and keeps s for reuse. It does
// not remove s from its group or the heap.
func (w *Agg) freeSession(s *session) {
	for _, a := range w.aggs {
		a.Free(s.slot)
	}
	w.arena.Clear(s.slot)
	w.slots.Free(s.slot)
	*s = session{heapIdx: -1}
	w.pool = append(w.pool, s)
}

// updateStateMetrics sets the state gauges: open sessions, and an estimate
// of the memory they hold.
func (w *Agg) updateStateMetrics() {
	if w.env == nil || w.env.Metrics == nil {
		return
	}
	live := int64(w.slots.Live())
	bytes := live*sessionBytes + w.keyBytes + int64(len(w.pool))*int64(unsafe.Sizeof(session{})) + w.arena.Bytes() +
		w.delta.bytes()
	for _, a := range w.aggs {
		bytes += a.Bytes()
	}
	w.env.Metrics.StateKeys.Store(live)
	w.env.Metrics.StateBytes.Store(bytes)
}

// closeHeap is a binary min-heap of open sessions ordered by window_end,
// then by creation: the order in which a watermark closes them. Each
// session knows its position (heapIdx), so that a session whose end moved
// is fixed in place and an absorbed one removed, in O(log n) each. The key
// is closeAt, not the live bounds: a chunk moves the ends of many sessions
// at once, and the heap is only correct if it sees one change at a time
// (settle applies them one by one).
type closeHeap []*session

// less orders sessions i and j.
func (h closeHeap) less(i, j int) bool {
	a, b := h[i], h[j]
	return a.closeAt < b.closeAt || (a.closeAt == b.closeAt && a.seq < b.seq)
}

func (h closeHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}

func (h closeHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

// down sifts i down and reports whether it moved.
func (h closeHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		c := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}

// update adds s to the heap, or moves it to its place after its closeAt
// changed.
func (h *closeHeap) update(s *session) {
	if s.heapIdx < 0 {
		s.heapIdx = len(*h)
		*h = append(*h, s)
		h.up(s.heapIdx)
		return
	}
	if !h.down(s.heapIdx) {
		h.up(s.heapIdx)
	}
}

// init orders a heap whose sessions know their positions but are in no
// order.
func (h closeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// remove takes s out of the heap if it is in it.
func (h *closeHeap) remove(s *session) {
	i := s.heapIdx
	if i < 0 {
		return
	}
	last := len(*h) - 1
	if i != last {
		h.swap(i, last)
	}
	(*h)[last] = nil
	*h = (*h)[:last]
	s.heapIdx = -1
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
}

// pop removes and returns the session that ends first.
func (h *closeHeap) pop() *session {
	s := (*h)[0]
	h.remove(s)
	return s
}
