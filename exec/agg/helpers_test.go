package agg

import (
	"slices"
	"strconv"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// testConfig builds a configuration from the input types ("bigint
// varchar"), the group key ordinals and aggregate calls written as
// "count(*)", "sum(1)", "count(distinct 0)" (brute.Aggs).
func testConfig(t testing.TB, input string, keys []int, calls ...string) HashConfig {
	t.Helper()
	cfg := HashConfig{GroupKeys: keys, Input: exectest.Types(t, input)}
	for _, k := range keys {
		cfg.Names = append(cfg.Names, "k"+strconv.Itoa(k))
	}
	cfg.Aggs = brute.Aggs(t, cfg.Input, calls...)
	cfg.Names = append(cfg.Names, calls...)
	return cfg
}

// newCollector returns a collector that checks the changelog shape of an
// aggregate of cfg: a chunk changes each group at most once, a -U is
// followed by the +U of its group, and a global aggregate inserts its row
// once and then only updates it.
func newCollector(t testing.TB, cfg HashConfig) *exectest.Collector {
	return exectest.NewCollector(t, exectest.CollectorOptions{
		KeyCols: len(cfg.GroupKeys), Global: len(cfg.GroupKeys) == 0})
}

// runSteps runs steps through a fresh HashAgg, comparing each step's
// output with its Want and the integral of all output with the brute-force
// aggregate of the integral of the input (bruteResult). It stops at the
// first step that expects an error.
func runSteps(t *testing.T, cfg HashConfig, steps []exectest.Step) {
	t.Helper()
	r := &exectest.Runner{
		Op:     NewHashAgg(cfg),
		Env:    exec.NewTestEnv(exectest.Alloc(t)),
		Out:    newCollector(t, cfg),
		Inputs: []*exectest.Integral{exectest.NewIntegral(cfg.Input)},
		Oracle: func(in []*exectest.Integral) []string { return bruteResult(cfg, in[0]) },
	}
	r.Run(t, steps)
}

// runOp runs steps through op with env, as a window test does: the
// collector renders timestamps in milliseconds and checks the shape of
// updates only. It returns the collector.
func runOp(t *testing.T, op exec.Operator, env *exec.Env, steps []exectest.Step) *exectest.Collector {
	t.Helper()
	r := &exectest.Runner{Op: op, Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})}
	r.Run(t, steps)
	return r.Out
}

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
