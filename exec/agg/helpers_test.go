package agg

import (
	"strconv"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
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
