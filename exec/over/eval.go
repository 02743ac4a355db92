package over

import (
	"slices"

	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// output is an output row of a partition, before or after a change: a
// copy of the distinct row with values id, with its aggregate results at
// Agg.vals[res:]. Within a chunk the id names the distinct row (an id
// freed by the chunk is handed out again only after it), so merge matches
// outputs by id and needs no keys; an output holds no pointer, which
// spares the garbage collector's write barrier at every output read.
type output struct {
	id  int32
	res int32
}

// span is a range [lo, hi) of ranks of a partition.
type span struct{ lo, hi int64 }

// eval is the scratch of outputs: the rows read for one span of
// ranks and the frames of its output rows.
type eval struct {
	spans  []span
	ids    []int32 // the row ids at ranks base, base+1, ... (one per copy)
	group  []int32 // with peer groups: per rank read, its peer group's end (exclusive)
	gstart []int32 // and its peer group's start
	dense  []int32 // and the number of peer groups read before its own
	gpos   []int32 // with peer groups: the first rank read of each group read, then the ranks read
	// denseBase is the number of peer groups before the first row read.
	denseBase int64
	fs        []int32 // per output row of the span: its frame's first rank read
	fe        []int32 // and its last (inclusive)
	acc       aggScratch
}

// outputs appends to dst the outputs, with their results, of the rows of
// tree whose results can depend on a row changed by ds (sorted by key), in
// rank order. The changed rows' own copies count as such rows.
//
// Called before and after ds is applied, it covers the same unchanged
// rows: under a bounded reach (ROWS n PRECEDING, LAG and LEAD) an
// unchanged row is covered when fewer than back rows lie between it and
// the closest changed key before it, or fewer than fwd between it and the
// closest after it, and those rows are unchanged, so they are the same
// before and after; under a tail reach (the unbounded frames, ROW_NUMBER,
// RANK, DENSE_RANK) a row is covered when a changed key (or, for peers,
// its ORDER BY prefix) lies before it or fewer than fwd rows after it,
// which the change does not alter. A change of one row thus re-emits the
// rows after it whose rank or frame it shifts: inherent to ranking.
func (o *Agg) outputs(tree *ordtree.Tree, ds []ordtree.Delta, dst []output) ([]output, error) {
	ev := &o.ev
	total := tree.Total
	if total == 0 {
		return dst, nil
	}
	ev.spans = ev.spans[:0]
	r := &o.reach
	if f := o.cfg.Frame; (f.Groups || f.Range) && !r.all {
		if f.Groups {
			o.groupSpans(ds, total)
		} else {
			o.rangeSpans(tree, ds, o.curBatch)
		}
		return o.spansOutputs(tree, dst)
	}
	switch {
	case r.all:
		ev.spans = append(ev.spans, span{0, total})
	case r.head:
		// To the last change's rank, and back rows after it.
		last := ds[len(ds)-1]
		rank, n := tree.Find(last.Key)
		ev.spans = append(ev.spans, span{0, min(total, rank+n+min(r.back, total))})
	case r.tail:
		var lo int64
		if o.cfg.Frame.Kind == plan.FramePeers {
			// The smallest key has the smallest ORDER BY prefix, which
			// sorts before every key it starts.
			lo, _ = tree.Find(ordtree.KeyOf(ds[0].S[:ds[0].OLen]))
		} else {
			lo, _ = tree.Find(ds[0].Key)
		}
		ev.spans = append(ev.spans, span{max(0, lo-min(r.fwd, total)), total})
	default:
		for _, d := range ds {
			rank, n := tree.Find(d.Key)
			// (Offsets are capped so that a huge one cannot overflow.)
			lo, hi := max(0, rank-min(r.fwd, total)), min(total, rank+n+min(r.back, total))
			if lo >= hi {
				continue
			}
			if k := len(ev.spans); k > 0 && lo <= ev.spans[k-1].hi {
				ev.spans[k-1].hi = max(ev.spans[k-1].hi, hi)
				continue
			}
			ev.spans = append(ev.spans, span{lo, hi})
		}
	}
	return o.spansOutputs(tree, dst)
}

// spansOutputs appends the outputs of the spans in o.ev.spans.
func (o *Agg) spansOutputs(tree *ordtree.Tree, dst []output) ([]output, error) {
	for _, s := range o.ev.spans {
		if s.lo >= s.hi {
			continue
		}
		var err error
		if dst, err = o.spanOutputs(tree, s, dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// groupSpans sets o.ev.spans to the outputs a GROUPS frame's changes ds
// affect: a frame from P groups before its row's to F groups after covers
// a change in the groups from F before it to P after it; a frame from the
// partition's start covers it from F before to the end, one to the end
// from the start to P after.
func (o *Agg) groupSpans(ds []ordtree.Delta, total int64) {
	ev, f := &o.ev, o.cfg.Frame
	before, after := max(0, f.Following), max(0, f.Preceding)
	ev.spans = ev.spans[:0]
	for _, d := range ds {
		lo, hi := o.groupSpan(o.cur, d.S[:d.OLen], before, after)
		switch f.Kind {
		case plan.FrameRowsUnbounded:
			hi = total
		case plan.FrameRowsToEnd:
			lo = 0
		}
		if lo >= hi {
			continue
		}
		if k := len(ev.spans); k > 0 && lo <= ev.spans[k-1].hi {
			ev.spans[k-1].hi = max(ev.spans[k-1].hi, hi)
			continue
		}
		ev.spans = append(ev.spans, span{lo, hi})
	}
}

// spanOutputs appends the outputs of the rows at ranks [s.lo, s.hi): it
// reads the rows from the first rank any of their frames, offsets or peer
// groups starts at (the partition's first under the unbounded frames) to
// the last any reaches, computes each output's frame and peer group over
// what it read, then the aggregates and functions. The ranking functions
// read no row before the outputs' peers: a row's rank is the tree's count
// of the rows before it, its dense rank the count of the peer groups
// before (peers.go).
func (o *Agg) spanOutputs(tree *ordtree.Tree, s span, dst []output) ([]output, error) {
	ev := &o.ev
	f := o.cfg.Frame
	r := &o.reach
	// The first rank read: the partition's first for the frames that
	// start there; else back rows before the first output, or before its
	// first peer when the outputs need their peer groups (RANK, ...), the
	// tree finding that peer in O(log n).
	var base int64
	end := min(tree.Total, s.hi+min(r.fwd, tree.Total))
	switch {
	case f.Range:
		base, end = o.rangeRead(tree, s)
	case f.Groups:
		// From P groups before the first output's to F groups after the
		// last output's.
		if f.Kind != plan.FrameRowsUnbounded {
			base = o.groupStart(o.cur, o.groupOf(o.cur, s.lo)-max(0, f.Preceding))
		}
		end = tree.Total
		if f.Kind != plan.FrameRowsToEnd {
			end = o.groupStart(o.cur, o.groupOf(o.cur, s.hi-1)+max(0, f.Following)+1)
		}
	case f.Kind == plan.FrameRowsUnbounded || f.Kind == plan.FramePeers || f.Kind == plan.FramePartition:
	case r.groups:
		first := peerStart(tree, s.lo)
		base = first - min(r.back, first)
	default:
		base = s.lo - min(r.back, s.lo)
	}
	ev.denseBase = 0
	if o.groups != nil && base > 0 {
		cur, _ := tree.SeekRank(base)
		ev.denseBase = groupsBefore(o.groups[o.cur], cur.Entry())
	}
	if f.Kind == plan.FrameRowsToEnd || f.Kind == plan.FramePeersToEnd {
		end = tree.Total
	}
	groups := r.groups
	ev.ids, ev.group, ev.gstart, ev.dense = ev.ids[:0], ev.group[:0], ev.gstart[:0], ev.dense[:0]
	ev.gpos = append(ev.gpos[:0], 0)
	first := len(dst)
	cur, start := tree.SeekRank(base)
	var prev string // the ORDER BY prefix of the row read before, if any
	gs, dense := int32(0), int32(0)
	for ; start < end; cur.Next() {
		e := cur.Entry()
		if groups && start > base && prev != e.S[:e.OLen] {
			// A new peer group starts: the previous one ends here.
			for k := len(ev.group) - 1; k >= 0 && ev.group[k] < 0; k-- {
				ev.group[k] = int32(len(ev.ids))
			}
			gs, dense = int32(len(ev.ids)), dense+1
			ev.gpos = append(ev.gpos, gs)
		}
		for c := max(0, base-start); c < min(e.N, end-start); c++ {
			ev.ids = append(ev.ids, e.ID)
			if groups {
				ev.group, ev.gstart, ev.dense = append(ev.group, -1), append(ev.gstart, gs), append(ev.dense, dense)
			}
			if start+c >= s.lo && start+c < s.hi {
				dst = append(dst, output{id: e.ID})
			}
		}
		prev = e.S[:e.OLen]
		start += e.N
	}
	for k := len(ev.group) - 1; k >= 0 && ev.group[k] < 0; k-- {
		ev.group[k] = int32(len(ev.ids))
	}
	ev.gpos = append(ev.gpos, int32(len(ev.ids)))
	outs := dst[first:]
	ev.fs, ev.fe = ev.fs[:0], ev.fe[:0]
	last := int64(len(ev.ids)) - 1 // the last row read, relative to base
	ngroups := int64(len(ev.gpos) - 1)
	// gpos returns the first row read of the group read at index k,
	// clamped to the groups read.
	gpos := func(k int64) int64 { return int64(ev.gpos[min(max(k, 0), ngroups)]) }
	if f.Range {
		o.rangeFrames(s.lo, base, len(outs))
	} else {
		for t := range outs {
			q := s.lo + int64(t) // the output's rank
			r := int32(q - base) // and relative to base
			// The frame's first and last rank read, relative to base, an
			// empty frame as [fs, fs-1] within the rows read.
			var fs, fe int64
			switch {
			case f.Groups:
				d := int64(ev.dense[r])
				fs, fe = gpos(d-f.Preceding), gpos(d+f.Following+1)-1
				if f.Kind == plan.FrameRowsUnbounded {
					fs = 0
				}
				if f.Kind == plan.FrameRowsToEnd {
					fe = last
				}
			default:
				fs, fe = o.rowsFrame(q, r, base, last, tree.Total)
			}
			fs = min(fs, last+1)
			fe = max(fe, fs-1)
			ev.fs, ev.fe = append(ev.fs, int32(fs)), append(ev.fe, int32(fe))
		}
	}
	stride := o.nRes
	res := len(o.vals)
	o.vals = slices.Grow(o.vals, len(outs)*stride)[:res+len(outs)*stride]
	for t := range outs {
		outs[t].res = int32(res + t*stride)
	}
	for j := range o.cfg.Aggs {
		if err := o.aggregate(j, o.vals[res:], stride); err != nil {
			return dst, err
		}
	}
	o.funcs(outs, s.lo, base, tree.Total, o.vals[res:], stride)
	return dst, nil
}

// rowsFrame returns the first and last rank read (relative to base) of
// the frame of the output at rank q (r relative to base), for the frames
// other than GROUPS; last is the last rank read and total the partition's
// size. An empty frame may come out with its end before its start.
func (o *Agg) rowsFrame(q int64, r int32, base, last, total int64) (fs, fe int64) {
	ev, f := &o.ev, o.cfg.Frame
	switch f.Kind {
	case plan.FrameRows:
		return max(0, q-f.Preceding) - base, min(total-1, q+f.Following) - base
	case plan.FrameRowsUnbounded:
		return 0, min(total-1, q+f.Following) - base
	case plan.FrameRowsToEnd:
		return max(0, q-f.Preceding) - base, last
	case plan.FramePeers:
		return 0, int64(ev.group[r]) - 1
	case plan.FramePeersToEnd:
		return int64(ev.gstart[r]), last
	case plan.FramePartition:
		return 0, last
	}
	return int64(r), int64(r)
}
