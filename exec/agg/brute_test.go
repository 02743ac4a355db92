package agg

import (
	"slices"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
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
	var all [][]types.Datum
	for _, e := range rows {
		for range e.N {
			all = append(all, e.Row)
		}
	}
	return brute.Aggregate(a, all)
}
