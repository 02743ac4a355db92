package over

import (
	"cmp"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// RANGE frames with offsets: a row's frame is the rows whose value of the
// one ORDER BY column lies from Preceding before its own to Following
// after, in the window's order (a NULL row's, its NULL peers). The rows a
// change affects and the rows its outputs read are found by binary search
// over the ranks of the partition's tree, reading the values from the row
// store: O(log² n) per change.

// rval is a value of the ORDER BY column of a RANGE frame.
type rval struct {
	null bool
	i    int64
	f    float64
}

// rangeFloat reports whether the RANGE frame's column is a DOUBLE.
func (o *Agg) rangeFloat() bool {
	return o.cfg.Input[o.cfg.Order[0].Col].Physical() == types.PhysFloat64
}

// rangeVal returns row id's value of the ORDER BY column.
func (o *Agg) rangeVal(id int32) rval {
	c := &o.store.Cols[o.cfg.Order[0].Col]
	switch {
	case !c.ValidAt(id):
		return rval{null: true}
	case o.rangeFloat():
		return rval{f: c.Float64At(id)}
	}
	return rval{i: c.Int(id)}
}

// batchVal returns the value of the ORDER BY column of row i of b.
func (o *Agg) batchVal(b arrow.RecordBatch, i int) rval {
	a := b.Column(o.cfg.Order[0].Col)
	if a.IsNull(i) {
		return rval{null: true}
	}
	switch a := a.(type) {
	case *array.Float64:
		return rval{f: a.Value(i)}
	case *array.Int64:
		return rval{i: a.Value(i)}
	case *array.Timestamp:
		return rval{i: int64(a.Value(i))}
	case *array.Date32:
		return rval{i: int64(a.Value(i))}
	}
	return rval{null: true} // the operator's check admits no other type
}

// rangeCmp compares a and b in the window's order (NULLs first ascending,
// last descending; a NaN before every other double).
func (o *Agg) rangeCmp(a, b rval) int {
	var c int
	switch {
	case a.null && b.null:
		return 0
	case a.null:
		c = -1
	case b.null:
		c = 1
	case o.rangeFloat():
		c = cmp.Compare(a.f, b.f)
	default:
		c = cmp.Compare(a.i, b.i)
	}
	if o.cfg.Order[0].Desc {
		c = -c
	}
	return c
}

// rangeShift moves v by the offset n (x for a DOUBLE) toward later rows in
// the window's order (earlier when negative); an integer saturates.
func (o *Agg) rangeShift(v rval, n int64, x float64) rval {
	if v.null {
		return v
	}
	if o.cfg.Order[0].Desc {
		n, x = -n, -x
	}
	if o.rangeFloat() {
		v.f += x
		return v
	}
	switch s := v.i + n; {
	case n > 0 && s < v.i:
		v.i = math.MaxInt64
	case n < 0 && s > v.i:
		v.i = math.MinInt64
	default:
		v.i = s
	}
	return v
}

// widen moves a DOUBLE target by a margin far beyond a rounding error,
// toward later rows (later) or earlier ones, so that a span found with it
// holds every output whose frame, computed with rounding, holds a value.
func (o *Agg) widen(v rval, later bool) rval {
	if v.null || !o.rangeFloat() || math.IsNaN(v.f) || math.IsInf(v.f, 0) {
		return v
	}
	m := math.Abs(v.f)*1e-9 + 1e-300
	if later == o.cfg.Order[0].Desc {
		m = -m
	}
	v.f += m
	return v
}

// firstRank returns the first rank of tree whose value is not before
// target in the window's order (strict: after it), total if none.
func (o *Agg) firstRank(tree *ordtree.Tree, target rval, strict bool) int64 {
	lo, hi := int64(0), tree.Total
	for lo < hi {
		mid := lo + (hi-lo)/2
		cur, start := tree.SeekRank(mid)
		e := cur.Entry()
		c := o.rangeCmp(o.rangeVal(e.ID), target)
		if c < 0 || strict && c == 0 {
			lo = start + e.N
		} else {
			hi = start
		}
	}
	return lo
}

// rangeSpans sets o.ev.spans to the outputs the changes ds of rows of
// batch b affect: the rows whose value v_q has the change's value v within
// its frame, v_q from Following before v to Preceding after it (to the end
// for a frame from the partition's start, from the start for one to its
// end), and the changed rows' own.
func (o *Agg) rangeSpans(tree *ordtree.Tree, ds []ordtree.Delta, b arrow.RecordBatch) {
	ev, f := &o.ev, o.cfg.Frame
	total := tree.Total
	ev.spans = ev.spans[:0]
	for _, d := range ds {
		v := o.batchVal(b, int(d.Row))
		rank, n := tree.Find(d.Key)
		lo, hi := int64(0), total
		if f.Kind != plan.FrameRowsToEnd {
			lo = o.firstRank(tree, o.widen(o.rangeShift(v, -f.Following, -f.FollowingF), false), false)
		}
		if f.Kind != plan.FrameRowsUnbounded {
			hi = o.firstRank(tree, o.widen(o.rangeShift(v, f.Preceding, f.PrecedingF), true), true)
		}
		// With the changed rows' own place (whether they are there or not,
		// so that both sides cover the rows between).
		lo, hi = min(lo, rank), max(hi, rank+n)
		if lo >= hi {
			continue
		}
		// The changes are in key order, so their spans are in order.
		if k := len(ev.spans); k > 0 && lo <= ev.spans[k-1].hi {
			ev.spans[k-1].hi = max(ev.spans[k-1].hi, hi)
			continue
		}
		ev.spans = append(ev.spans, span{lo, hi})
	}
}

// rangeRead returns the ranks [base, end) the outputs at ranks [s.lo,
// s.hi) read under a RANGE frame with offsets.
func (o *Agg) rangeRead(tree *ordtree.Tree, s span) (base, end int64) {
	f := o.cfg.Frame
	base, end = 0, tree.Total
	if f.Kind != plan.FrameRowsUnbounded {
		cur, _ := tree.SeekRank(s.lo)
		v := o.rangeVal(cur.Entry().ID)
		base = min(s.lo, o.firstRank(tree, o.rangeShift(v, -f.Preceding, -f.PrecedingF), false))
	}
	if f.Kind != plan.FrameRowsToEnd {
		cur, _ := tree.SeekRank(s.hi - 1)
		v := o.rangeVal(cur.Entry().ID)
		end = max(s.hi, o.firstRank(tree, o.rangeShift(v, f.Following, f.FollowingF), true))
	}
	return base, end
}

// rangeFrames computes the frames of the outputs of the current span
// (first at rank lo among the rows read from base) with two pointers over
// the values read.
func (o *Agg) rangeFrames(lo, base int64, nOut int) {
	ev, f := &o.ev, o.cfg.Frame
	last := int32(len(ev.ids)) - 1
	fs, fe := int32(0), int32(-1)
	for t := range nOut {
		r := int32(lo - base + int64(t))
		v := o.rangeVal(ev.ids[r])
		if f.Kind == plan.FrameRowsUnbounded {
			fs = 0
		} else {
			from := o.rangeShift(v, -f.Preceding, -f.PrecedingF)
			for fs <= last && o.rangeCmp(o.rangeVal(ev.ids[fs]), from) < 0 {
				fs++
			}
		}
		if f.Kind == plan.FrameRowsToEnd {
			fe = last
		} else {
			to := o.rangeShift(v, f.Following, f.FollowingF)
			for fe < last && o.rangeCmp(o.rangeVal(ev.ids[fe+1]), to) <= 0 {
				fe++
			}
		}
		ev.fs, ev.fe = append(ev.fs, fs), append(ev.fe, max(fe, fs-1))
	}
}
