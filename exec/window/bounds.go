package window

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/eddysql/eddy/exec"
)

// floorDiv returns ⌊a/b⌋ for b > 0, rounding towards −∞ (Go's / truncates
// towards zero, which would put times before 1970 in the wrong window).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// assign computes the windows of every row of times: w.sel, w.starts and
// w.ends get one entry per output row, and w.segs[i] is the first output
// row of source row i (w.segs[n] the total). Rows with a NULL time get none.
func (w *Assign) assign(times *array.Timestamp) {
	vals := times.TimestampValues()
	nulls := times.NullN() > 0
	n := len(vals)
	w.sel, w.starts, w.ends = w.sel[:0], w.starts[:0], w.ends[:0]
	w.segs = slices.Grow(w.segs[:0], n+1)[:n+1]
	size, slide := w.cfg.Size, w.cfg.Slide
	switch w.cfg.Kind {
	case Tumble:
		for i, v := range vals {
			w.segs[i] = int32(len(w.sel))
			if nulls && times.IsNull(i) {
				continue
			}
			s := floorDiv(int64(v), size) * size
			w.add(i, s, s+size)
		}
	case Hop:
		// The windows of t start at the multiples of slide in (t−size, t].
		per := (size-1)/slide + 1 // at most this many; bounds the loop even if t±size wraps around
		for i, v := range vals {
			w.segs[i] = int32(len(w.sel))
			if nulls && times.IsNull(i) {
				continue
			}
			t := int64(v)
			last := floorDiv(t, slide) * slide
			s := (floorDiv(t-size, slide) + 1) * slide
			for k := int64(0); k < per && s <= last; k++ {
				w.add(i, s, s+size)
				s += slide
			}
		}
	case Cumulate:
		// The windows of t share start = ⌊t/max⌋·max and end at the
		// multiples of step after t, up to start+max.
		steps := size / slide
		for i, v := range vals {
			w.segs[i] = int32(len(w.sel))
			if nulls && times.IsNull(i) {
				continue
			}
			t := int64(v)
			start := floorDiv(t, size) * size
			for k := (t-start)/slide + 1; k <= steps; k++ {
				w.add(i, start, start+k*slide)
			}
		}
	}
	w.segs[n] = int32(len(w.sel))
}

// add appends output row (source row i, window [start, end)).
func (w *Assign) add(i int, start, end int64) {
	w.sel = append(w.sel, int32(i))
	w.starts = append(w.starts, start)
	w.ends = append(w.ends, end)
}

// assignOps returns the ops of the output rows, given the input's ops src.
// A row keeps its op in each of its windows, except for the halves of an
// update (a -U row immediately followed by its +U row): when both halves
// fall in the same windows, the output rows are reordered to pair them per
// window (-U, +U in the first window, then in the next, ...); otherwise the
// -U becomes a -D in each of its windows and the +U a +I in each of its
// own, as the changes are no longer updates of one output row. It may
// reorder w.sel, w.starts and w.ends, so it runs before the batch is built.
func (w *Assign) assignOps(src []exec.Op) []exec.Op {
	w.ops = slices.Grow(w.ops[:0], len(w.sel))[:len(w.sel)]
	for j, i := range w.sel {
		op := src[i]
		switch op {
		case exec.UpdateBefore:
			op = exec.Delete
		case exec.UpdateAfter:
			op = exec.Insert
		}
		w.ops[j] = op
	}
	for i := 0; i+1 < len(src); i++ {
		if src[i] != exec.UpdateBefore || src[i+1] != exec.UpdateAfter {
			continue
		}
		a, b, c := w.segs[i], w.segs[i+1], w.segs[i+2]
		k := b - a
		if k == 0 || c-b != k || !slices.Equal(w.starts[a:b], w.starts[b:c]) || !slices.Equal(w.ends[a:b], w.ends[b:c]) {
			continue
		}
		// Interleave in place: output rows a+2j and a+2j+1 are the -U and
		// the +U in window j. Both halves have the same windows, so window j
		// is read from the +U's rows, at b+j; the writes of step j only
		// reach rows up to b+j, already read.
		for j := int32(0); j < k; j++ {
			st, en := w.starts[b+j], w.ends[b+j]
			lo, hi := a+2*j, a+2*j+1
			w.sel[lo], w.starts[lo], w.ends[lo], w.ops[lo] = int32(i), st, en, exec.UpdateBefore
			w.sel[hi], w.starts[hi], w.ends[hi], w.ops[hi] = int32(i+1), st, en, exec.UpdateAfter
		}
		i++
	}
	return w.ops
}
