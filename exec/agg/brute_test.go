package agg

import (
	"math/big"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// bruteResult recomputes the aggregate of cfg from scratch over the
// integral of its input, as the oracle of the tests: one row per group
// (one row when there are no group keys, even over no input), rendered
// with exectest.RoundRow, sorted.
func bruteResult(cfg HashConfig, in *exectest.Integral) []string {
	groups := map[string][]*exectest.Counted{}
	keyOf := map[string][]types.Datum{}
	if len(cfg.GroupKeys) == 0 {
		groups[""] = nil
	}
	for _, e := range in.Counted() {
		key := make([]types.Datum, len(cfg.GroupKeys))
		for i, ord := range cfg.GroupKeys {
			key[i] = e.Row[ord]
		}
		k := exectest.Key(key)
		groups[k] = append(groups[k], e)
		keyOf[k] = key
	}
	var ts []types.T
	for _, ord := range cfg.GroupKeys {
		ts = append(ts, cfg.Input[ord])
	}
	for _, a := range cfg.Aggs {
		ts = append(ts, a.Type)
	}
	var out []string
	for k, rows := range groups {
		row := append([]types.Datum(nil), keyOf[k]...)
		for _, a := range cfg.Aggs {
			row = append(row, bruteOne(a, rows))
		}
		out = append(out, exectest.RoundRow(row, ts, exectest.Text))
	}
	slices.Sort(out)
	return out
}

// bruteOne computes one aggregate over rows with multiplicities.
func bruteOne(a accum.Spec, rows []*exectest.Counted) types.Datum {
	var vals []types.Datum // one entry per occurrence of a non-NULL value
	var count int64
	for _, e := range rows {
		count += e.N
		if a.Arg >= 0 && !e.Row[a.Arg].Null {
			for range e.N {
				vals = append(vals, e.Row[a.Arg])
			}
		}
	}
	if a.Func == plan.AggCountStar {
		return types.IntDatum(count)
	}
	if a.Distinct {
		seen := map[string]bool{}
		var d []types.Datum
		for _, v := range vals {
			if k := exectest.Key([]types.Datum{v}); !seen[k] {
				seen[k] = true
				d = append(d, v)
			}
		}
		vals = d
	}
	if a.Func == plan.AggCount {
		return types.IntDatum(int64(len(vals)))
	}
	if len(vals) == 0 {
		return types.NullDatum
	}
	switch a.Func {
	case plan.AggMin, plan.AggMax:
		best := vals[0]
		for _, v := range vals[1:] {
			c := types.Compare(v, best, a.ArgType)
			if (a.Func == plan.AggMin && c < 0) || (a.Func == plan.AggMax && c > 0) {
				best = v
			}
		}
		return best
	}
	var isum big.Int
	var fsum float64
	var dsum decimal128.Num
	for _, v := range vals {
		switch a.ArgType.Physical() {
		case types.PhysInt64:
			isum.Add(&isum, big.NewInt(v.I))
		case types.PhysFloat64:
			fsum += v.F
		case types.PhysDecimal:
			dsum = dsum.Add(v.D)
		}
	}
	n := float64(len(vals))
	switch a.ArgType.Physical() {
	case types.PhysInt64:
		if a.Func == plan.AggAvg {
			f, _ := new(big.Float).SetInt(&isum).Float64()
			return types.FloatDatum(f / n)
		}
		return types.IntDatum(isum.Int64())
	case types.PhysDecimal:
		if a.Func == plan.AggAvg {
			return types.FloatDatum(dsum.ToFloat64(int32(a.ArgType.Scale)) / n)
		}
		return types.DecimalDatum(dsum)
	}
	if a.Func == plan.AggAvg {
		fsum /= n
	}
	return types.FloatDatum(fsum)
}
