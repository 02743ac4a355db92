package over

import (
	"slices"

	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// output is an output row of a partition, before or after a change:
// the copy-th copy (from 0) of the distinct row with sort key key and
// values id, with its aggregate results at Agg.vals[res:].
type output struct {
	ordtree.Key

	copy int64
	id   int32
	res  int32
}

// span is a range [lo, hi) of ranks of a partition.
type span struct{ lo, hi int64 }

// eval is the scratch of outputs: the rows read for one span of
// ranks and the frames of its output rows.
type eval struct {
	spans []span
	ids   []int32 // the row ids at ranks base, base+1, ... (one per copy)
	group []int32 // FramePeers: per rank read, its peer group's end (exclusive)
	fs    []int32 // per output row of the span: its frame's first rank read
	fe    []int32 // and its last (inclusive)
	acc   aggScratch
}

// outputs appends to dst the outputs, with their aggregates, of the rows of
// tree whose frames hold a row changed by ds (sorted by key), in rank
// order. The changed rows' own copies count as such rows.
//
// Called before and after ds is applied, it covers the same unchanged
// rows: under ROWS n PRECEDING an unchanged row is covered when fewer than
// n rows lie between it and the closest changed key before it, and those
// rows are unchanged, so they are the same before and after; under the
// unbounded frames a row is covered when a changed key (or, for peers, its
// ORDER BY prefix) precedes it, which the change does not alter.
func (o *Agg) outputs(tree *ordtree.Tree, ds []ordtree.Delta, dst []output) ([]output, error) {
	ev := &o.ev
	total := tree.Total
	if total == 0 {
		return dst, nil
	}
	ev.spans = ev.spans[:0]
	switch f := o.cfg.Frame; f.Kind {
	case plan.FrameRows:
		for _, d := range ds {
			rank, n := tree.Find(d.Key)
			// (Preceding is capped so that a huge one cannot overflow.)
			lo, hi := rank, min(total, rank+n+min(f.Preceding, total))
			if lo >= hi {
				continue
			}
			if k := len(ev.spans); k > 0 && lo <= ev.spans[k-1].hi {
				ev.spans[k-1].hi = max(ev.spans[k-1].hi, hi)
				continue
			}
			ev.spans = append(ev.spans, span{lo, hi})
		}
	case plan.FrameRowsUnbounded:
		lo, _ := tree.Find(ds[0].Key)
		ev.spans = append(ev.spans, span{lo, total})
	case plan.FramePeers:
		// The smallest key has the smallest ORDER BY prefix, which sorts
		// before every key it starts.
		lo, _ := tree.Find(ordtree.KeyOf(ds[0].S[:ds[0].OLen]))
		ev.spans = append(ev.spans, span{lo, total})
	default:
		ev.spans = append(ev.spans, span{0, total})
	}
	for _, s := range ev.spans {
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

// spanOutputs appends the outputs of the rows at ranks [s.lo, s.hi): it
// reads the rows from the first rank any of their frames starts at (the
// partition's first under the unbounded frames), computes each output's
// frame over what it read, then the aggregates.
func (o *Agg) spanOutputs(tree *ordtree.Tree, s span, dst []output) ([]output, error) {
	ev := &o.ev
	f := o.cfg.Frame
	base := int64(0)
	if f.Kind == plan.FrameRows {
		base = max(0, s.lo-f.Preceding)
	}
	peers := f.Kind == plan.FramePeers
	ev.ids, ev.group = ev.ids[:0], ev.group[:0]
	first := len(dst)
	cur, start := tree.SeekRank(base)
	var prev *ordtree.Entry
	for ; start < s.hi; cur.Next() {
		e := cur.Entry()
		if peers && prev != nil && prev.S[:prev.OLen] != e.S[:e.OLen] {
			// A new peer group starts: the previous one ends here.
			for k := len(ev.group) - 1; k >= 0 && ev.group[k] < 0; k-- {
				ev.group[k] = int32(len(ev.ids))
			}
		}
		for c := max(0, base-start); c < min(e.N, s.hi-start); c++ {
			ev.ids = append(ev.ids, e.ID)
			if peers {
				ev.group = append(ev.group, -1)
			}
			if start+c >= s.lo {
				dst = append(dst, output{Key: e.Key, copy: c, id: e.ID})
			}
		}
		prev = e
		start += e.N
	}
	for k := len(ev.group) - 1; k >= 0 && ev.group[k] < 0; k-- {
		ev.group[k] = int32(len(ev.ids))
	}
	outs := dst[first:]
	ev.fs, ev.fe = ev.fs[:0], ev.fe[:0]
	for t := range outs {
		r := int32(s.lo - base + int64(t)) // the output's rank, relative to base
		switch f.Kind {
		case plan.FrameRows:
			ev.fs = append(ev.fs, int32(max(0, s.lo+int64(t)-f.Preceding)-base))
			ev.fe = append(ev.fe, r)
		case plan.FrameRowsUnbounded:
			ev.fs, ev.fe = append(ev.fs, 0), append(ev.fe, r)
		case plan.FramePeers:
			ev.fs, ev.fe = append(ev.fs, 0), append(ev.fe, ev.group[r]-1)
		default:
			ev.fs, ev.fe = append(ev.fs, 0), append(ev.fe, int32(len(ev.ids)-1))
		}
	}
	nAggs := len(o.cfg.Aggs)
	res := len(o.vals)
	o.vals = slices.Grow(o.vals, len(outs)*nAggs)[:res+len(outs)*nAggs]
	for t := range outs {
		outs[t].res = int32(res + t*nAggs)
	}
	for j := range o.cfg.Aggs {
		if err := o.aggregate(j, o.vals[res:], nAggs); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
