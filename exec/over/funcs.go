package over

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// Func is a window function other than an aggregate: ROW_NUMBER, RANK,
// DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE,
// LAST_VALUE or NTH_VALUE.
type Func struct {
	Kind plan.WinFuncKind
	// Arg is the input ordinal of the argument of LAG, LEAD and the value
	// functions; -1 for the ranking functions.
	Arg int
	// N is LAG's and LEAD's offset, NTILE's bucket count and NTH_VALUE's
	// position.
	N int64
	// Default is the input ordinal of LAG's and LEAD's default, read from
	// the current row; -1 for NULL.
	Default int
	// Type is the result type: BIGINT for ROW_NUMBER, RANK, DENSE_RANK and
	// NTILE, DOUBLE for PERCENT_RANK and CUME_DIST, Arg's type otherwise.
	Type types.T
}

// check validates a function against n input columns.
func (f *Func) check(n int) error {
	switch f.Kind {
	case plan.WinRowNumber, plan.WinRank, plan.WinDenseRank, plan.WinPercentRank, plan.WinCumeDist:
		return nil
	case plan.WinNtile:
		if f.N < 1 {
			return fmt.Errorf("%s: N is %d, not at least 1", f.Kind, f.N)
		}
		return nil
	case plan.WinNthValue:
		if f.N < 1 {
			return fmt.Errorf("%s: N is %d, not at least 1", f.Kind, f.N)
		}
	case plan.WinLag, plan.WinLead:
		if f.N < 0 {
			return fmt.Errorf("%s: offset %d is negative", f.Kind, f.N)
		}
	case plan.WinFirstValue, plan.WinLastValue:
	default:
		return fmt.Errorf("window function %d is unknown", f.Kind)
	}
	if f.Arg < 0 || f.Arg >= n || f.Default >= n {
		return fmt.Errorf("%s: argument ordinal %d or default %d out of range", f.Kind, f.Arg, f.Default)
	}
	return nil
}

// reach is what a change of a partition's rows affects and what the
// outputs read, over all of an Agg's aggregates and functions.
type reach struct {
	all    bool  // every output can change (whole-partition frame, PERCENT_RANK, CUME_DIST, NTILE)
	tail   bool  // outputs from the first change on can change
	head   bool  // outputs up to the last change (and back after) can change: frames to the partition's end
	back   int64 // bounded: a change affects the outputs up to back ranks after it, which read back ranks before
	fwd    int64 // a change affects the outputs up to fwd ranks before it (LEAD), which read fwd ranks after
	groups bool  // the outputs need their peer groups (RANGE frame, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST)
}

// reachOf derives the reach of cfg.
func reachOf(cfg *Config) reach {
	var r reach
	if f := cfg.Frame; f.Groups || f.Range {
		r.groups = f.Groups
		switch f.Kind {
		case plan.FrameRowsUnbounded:
			r.tail = true
		case plan.FrameRowsToEnd:
			r.head = true
		}
		if r.head && r.tail {
			r.all = true
		}
		return r // a frame's node computes no ranking or offset function
	}
	switch f := cfg.Frame; f.Kind {
	case plan.FramePartition:
		r.all = true
	case plan.FrameRowsUnbounded:
		r.tail, r.fwd = true, max(0, f.Following)
	case plan.FramePeers:
		r.tail, r.groups = true, true
	case plan.FrameRows:
		r.back, r.fwd = max(0, f.Preceding), max(0, f.Following)
	case plan.FrameRowsToEnd:
		r.head, r.back = true, max(0, f.Preceding)
	case plan.FramePeersToEnd:
		r.all, r.groups = true, true
	}
	for _, f := range cfg.Funcs {
		switch f.Kind {
		case plan.WinRowNumber:
			r.tail = true
		case plan.WinRank, plan.WinDenseRank:
			r.tail, r.groups = true, true
		case plan.WinPercentRank, plan.WinCumeDist:
			r.all, r.groups = true, true
		case plan.WinNtile:
			r.all = true
		case plan.WinLag:
			r.back = max(r.back, f.N)
		case plan.WinLead:
			r.fwd = max(r.fwd, f.N)
		}
	}
	if r.head && r.tail {
		r.all = true
	}
	return r
}

// funcs computes the window functions for every output of the current
// span, whose first output is at rank lo of a partition of total rows,
// into vals[t*stride+len(Aggs)+j].
func (o *Agg) funcs(outs []output, lo, base, total int64, vals []result, stride int) {
	ev := &o.ev
	first := len(o.cfg.Aggs)
	for j, f := range o.cfg.Funcs {
		for t := range outs {
			rank := lo + int64(t)   // the output's rank in its partition
			r := int32(rank - base) // and among the rows read
			v := &vals[t*stride+first+j]
			switch f.Kind {
			case plan.WinRowNumber:
				*v = result{lo: uint64(rank + 1), valid: true}
			case plan.WinRank:
				*v = result{lo: uint64(ev.gstart[r]) + uint64(base) + 1, valid: true}
			case plan.WinDenseRank:
				*v = result{lo: uint64(ev.denseBase) + uint64(ev.dense[r]) + 1, valid: true}
			case plan.WinPercentRank:
				x := 0.0
				if total > 1 {
					x = float64(int64(ev.gstart[r])+base) / float64(total-1)
				}
				*v = result{lo: math.Float64bits(x), valid: true}
			case plan.WinCumeDist:
				*v = result{lo: math.Float64bits(float64(int64(ev.group[r])+base) / float64(total)), valid: true}
			case plan.WinNtile:
				*v = result{lo: uint64(ntile(rank, total, f.N)), valid: true}
			case plan.WinLag:
				*v = o.offsetValue(&f, outs[t].id, rank-f.N >= 0, r-int32(f.N))
			case plan.WinLead:
				*v = o.offsetValue(&f, outs[t].id, rank+f.N < total, r+int32(f.N))
			case plan.WinFirstValue:
				*v = result{}
				if ev.fs[t] <= ev.fe[t] {
					*v = result{lo: uint64(ev.ids[ev.fs[t]]), valid: true}
				}
			case plan.WinLastValue:
				*v = result{}
				if ev.fs[t] <= ev.fe[t] {
					*v = result{lo: uint64(ev.ids[ev.fe[t]]), valid: true}
				}
			case plan.WinNthValue:
				*v = result{}
				if k := int64(ev.fs[t]) + f.N - 1; k <= int64(ev.fe[t]) {
					*v = result{lo: uint64(ev.ids[k]), valid: true}
				}
			}
		}
	}
}

// offsetValue is LAG's or LEAD's result: the argument of the row read at
// k when it exists, else the default read from the current row id (hi 1
// marks a default), or NULL without one.
func (o *Agg) offsetValue(f *Func, id int32, exists bool, k int32) result {
	switch {
	case exists:
		return result{lo: uint64(o.ev.ids[k]), valid: true}
	case f.Default >= 0:
		return result{lo: uint64(id), hi: 1, valid: true}
	}
	return result{}
}

// ntile returns NTILE(n)'s bucket, from 1, of the row at rank (from 0) of
// total rows: the buckets hold total/n rows each, the first total%n one
// more.
func ntile(rank, total, n int64) int64 {
	q, rem := total/n, total%n
	big := rem * (q + 1) // the rows of the larger buckets
	if rank < big {
		return rank/(q+1) + 1
	}
	return (rank-big)/q + rem + 1
}

// valueCol returns the input column a value result reads.
func (f *Func) valueCol(v result) int {
	if v.hi == 1 {
		return f.Default
	}
	return f.Arg
}

// sameFunc reports whether results x and y of function f are the same
// value: a value read from a row's NULL is the same as no row.
func (o *Agg) sameFunc(f *Func, x, y result) bool {
	if f.Arg < 0 {
		return x.lo == y.lo
	}
	xv, yv := x.valid && o.store.Cols[f.valueCol(x)].ValidAt(int32(x.lo)), y.valid && o.store.Cols[f.valueCol(y)].ValidAt(int32(y.lo))
	if xv != yv || !xv {
		return xv == yv
	}
	return o.store.Cols[f.valueCol(x)].SameAs(int32(x.lo), &o.store.Cols[f.valueCol(y)], int32(y.lo))
}

// funcColumn builds the output column of function j for o.rows.
func (o *Agg) funcColumn(j int) (arrow.Array, error) {
	f := &o.cfg.Funcs[j]
	alloc := o.env.Alloc
	slot := len(o.cfg.Aggs) + j
	if f.Arg < 0 {
		bld := array.NewBuilder(alloc, f.Type.Arrow())
		defer bld.Release()
		bld.Reserve(len(o.rows))
		switch b := bld.(type) {
		case *array.Int64Builder:
			for _, r := range o.rows {
				b.UnsafeAppend(int64(o.vals[int(r.res)+slot].lo))
			}
		case *array.Float64Builder:
			for _, r := range o.rows {
				b.UnsafeAppend(math.Float64frombits(o.vals[int(r.res)+slot].lo))
			}
		}
		return bld.NewArray(), nil
	}
	// The values read from other rows, then (for a default) those read
	// from the rows themselves, each NULL where the other applies.
	o.ids = o.ids[:0]
	defaults := false
	for _, r := range o.rows {
		v := o.vals[int(r.res)+slot]
		id := int32(-1)
		if v.valid && v.hi == 0 {
			id = int32(v.lo)
		}
		defaults = defaults || v.hi == 1
		o.ids = append(o.ids, id)
	}
	vals := o.store.Gather(alloc, f.Arg, o.ids)
	if !defaults {
		return vals, nil
	}
	defer vals.Release()
	o.ids = o.ids[:0]
	for _, r := range o.rows {
		id := int32(-1)
		if v := o.vals[int(r.res)+slot]; v.hi == 1 {
			id = int32(v.lo)
		}
		o.ids = append(o.ids, id)
	}
	defs := o.store.Gather(alloc, f.Default, o.ids)
	defer defs.Release()
	both, err := array.Concatenate([]arrow.Array{vals, defs}, alloc)
	if err != nil {
		return nil, err
	}
	defer both.Release()
	n := int32(len(o.rows))
	o.ids = o.ids[:0]
	for k, r := range o.rows {
		idx := int32(k)
		if o.vals[int(r.res)+slot].hi == 1 {
			idx += n
		}
		o.ids = append(o.ids, idx)
	}
	return expr.Take(alloc, both, o.ids)
}
