package over

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/rowstore"
	"github.com/eddysql/eddy/planner/plan"
)

// result is one aggregate result of an output row: a BIGINT, or a
// double's bits, in lo; a decimal in hi:lo; for MIN and MAX the row store
// id of a row holding the value, in lo. valid is false for NULL.
type result struct {
	lo    uint64
	hi    int64
	valid bool
}

// aggScratch is the scratch of the aggregate loops: prefix counts and
// 128-bit prefix sums over the rows read, and MIN/MAX's deque.
type aggScratch struct {
	cnt   []int64
	sums  []accum.Int128
	deque []int32
}

// features are what the window aggregate computes beyond plain COUNT,
// SUM, AVG, MIN and MAX: nothing (a frame's DISTINCT values would need a
// multiset per frame).
var features = accum.Features{}

// aggregate computes aggregate j for every output of the current span
// (frames o.ev.fs/fe over the rows o.ev.ids) into vals[t*stride+j].
func (o *Agg) aggregate(j int, vals []result, stride int) error {
	a := o.cfg.Aggs[j]
	ev := &o.ev
	fs, fe := ev.fs, ev.fe
	if a.Func == plan.AggCountStar {
		for t := range fs {
			vals[t*stride+j] = result{lo: uint64(fe[t] - fs[t] + 1), valid: true} // 0 for an empty frame
		}
		return nil
	}
	col := &o.store.Cols[a.Arg]
	switch {
	case a.Func == plan.AggMin || a.Func == plan.AggMax:
		o.minMax(col, a.Func == plan.AggMax, vals[j:], stride)
		return nil
	case a.Func == plan.AggCount || col.T.Physical() == types.PhysInt64:
		return o.prefixAgg(col, a.Func, vals[j:], stride)
	}
	return o.foldAgg(col, a, vals[j:], stride)
}

// prefixAgg computes COUNT, and SUM and AVG over integers, from prefix
// counts and exact 128-bit prefix sums: a frame's is the difference of two.
// SUM and AVG round as the other families' do (accum.Int128); a SUM beyond
// BIGINT fails.
func (o *Agg) prefixAgg(col *rowstore.Col, f plan.AggFunc, vals []result, stride int) error {
	ev, acc := &o.ev, &o.ev.acc
	sums := f != plan.AggCount
	n := len(ev.ids)
	acc.cnt = append(acc.cnt[:0], 0)
	acc.sums = append(acc.sums[:0], accum.Int128{})
	for k := 0; k < n; k++ {
		id := ev.ids[k]
		c, sum := acc.cnt[k], acc.sums[k]
		if col.ValidAt(id) {
			c++
			if sums {
				sum = sum.Add64(col.Int64At(id))
			}
		}
		acc.cnt, acc.sums = append(acc.cnt, c), append(acc.sums, sum)
	}
	for t := range ev.fs {
		a, b := ev.fs[t], ev.fe[t]+1
		cnt := acc.cnt[b] - acc.cnt[a]
		v := &vals[t*stride]
		switch {
		case f == plan.AggCount:
			*v = result{lo: uint64(cnt), valid: true}
			continue
		case cnt == 0:
			*v = result{}
			continue
		}
		sum := acc.sums[b].Sub(acc.sums[a])
		if f == plan.AggAvg {
			*v = result{lo: math.Float64bits(sum.Float64() / float64(cnt)), valid: true}
			continue
		}
		x, err := sum.Int64()
		if err != nil {
			return err
		}
		*v = result{lo: uint64(x), valid: true}
	}
	return nil
}

// foldAgg computes SUM and AVG over doubles and decimals by summing each
// frame's values in rank order from the frame's first row, extending the
// previous frame's sum when the next frame starts at the same row: a
// frame's sum is thus the same whichever rows were read around it. Doubles
// are summed as the other families sum them (accum.FloatSum: compensated,
// infinities and NaNs counted apart); a decimal SUM beyond 38 digits fails.
func (o *Agg) foldAgg(col *rowstore.Col, a accum.Spec, vals []result, stride int) error {
	ev := &o.ev
	dec := col.T.Physical() == types.PhysDecimal
	scale := int32(a.ArgType.Scale)
	var fsum accum.FloatSum
	var dsum decimal128.Num
	var n int64
	curFs, curFe := int32(-1), int32(-1)
	for t := range ev.fs {
		if ev.fs[t] != curFs {
			fsum, dsum, n = accum.FloatSum{}, decimal128.Num{}, 0
			curFs, curFe = ev.fs[t], ev.fs[t]-1
		}
		for k := curFe + 1; k <= ev.fe[t]; k++ {
			id := ev.ids[k]
			if !col.ValidAt(id) {
				continue
			}
			n++
			if !dec {
				fsum.Add(col.Float64At(id))
				continue
			}
			var err error
			if dsum, err = accum.AddDecimal(dsum, col.DecimalAt(id)); err != nil {
				return err
			}
		}
		curFe = max(curFe, ev.fe[t])
		v := &vals[t*stride]
		if n == 0 {
			*v = result{}
			continue
		}
		if dec {
			if a.Func == plan.AggAvg {
				*v = result{lo: math.Float64bits(dsum.ToFloat64(scale) / float64(n)), valid: true}
				continue
			}
			sum, err := accum.DecimalSum(dsum)
			if err != nil {
				return err
			}
			*v = result{lo: sum.LowBits(), hi: sum.HighBits(), valid: true}
			continue
		}
		r := fsum.Value()
		if a.Func == plan.AggAvg {
			r /= float64(n)
		}
		*v = result{lo: math.Float64bits(r), valid: true}
	}
	return nil
}

// minMax computes MIN (or MAX) over sliding frames with a deque of the
// rows read that can still be a frame's extreme: their values strictly
// increase (decrease) from the front, so the front is the extreme of the
// current frame, the last of its rows holding that value. The result is
// that row's id.
func (o *Agg) minMax(col *rowstore.Col, isMax bool, vals []result, stride int) {
	ev, acc := &o.ev, &o.ev.acc
	dq := acc.deque[:0]
	head, next := 0, int32(0)
	for t := range ev.fs {
		for ; next <= ev.fe[t]; next++ {
			id := ev.ids[next]
			if !col.ValidAt(id) {
				continue
			}
			for len(dq) > head {
				c := col.Compare(ev.ids[dq[len(dq)-1]], id)
				if isMax {
					c = -c
				}
				if c < 0 {
					break
				}
				dq = dq[:len(dq)-1]
			}
			dq = append(dq, next)
		}
		for head < len(dq) && dq[head] < ev.fs[t] {
			head++
		}
		v := &vals[t*stride]
		if head < len(dq) {
			*v = result{lo: uint64(ev.ids[dq[head]]), valid: true}
		} else {
			*v = result{}
		}
	}
	acc.deque = dq
}

// sameResults reports whether the aggregate results at vals[a:] and
// vals[b:] are the same.
func (o *Agg) sameResults(a, b int32) bool {
	for j, spec := range o.cfg.Aggs {
		x, y := o.vals[int(a)+j], o.vals[int(b)+j]
		if x.valid != y.valid {
			return false
		}
		if !x.valid {
			continue
		}
		if spec.Func == plan.AggMin || spec.Func == plan.AggMax {
			if !o.store.Cols[spec.Arg].Same(int32(x.lo), int32(y.lo)) {
				return false
			}
			continue
		}
		if x.lo != y.lo || x.hi != y.hi {
			return false
		}
	}
	first := len(o.cfg.Aggs)
	for j := range o.cfg.Funcs {
		if !o.sameFunc(&o.cfg.Funcs[j], o.vals[int(a)+first+j], o.vals[int(b)+first+j]) {
			return false
		}
	}
	return true
}
