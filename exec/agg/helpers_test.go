package agg

import (
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// testConfig builds a configuration from the input types ("bigint
// varchar"), the group key ordinals and aggregate calls written as
// "count(*)", "sum(1)", "count(distinct 0)" (arguments are input ordinals).
func testConfig(t testing.TB, input string, keys []int, calls ...string) HashConfig {
	t.Helper()
	cfg := HashConfig{GroupKeys: keys, Input: exectest.Types(t, input)}
	for _, k := range keys {
		cfg.Names = append(cfg.Names, "k"+strconv.Itoa(k))
	}
	funcs := map[string]plan.AggFunc{"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg,
		"min": plan.AggMin, "max": plan.AggMax, "approx_count_distinct": plan.AggApproxCountDistinct}
	for _, c := range calls {
		name, arg, _ := strings.Cut(strings.TrimSuffix(c, ")"), "(")
		spec := accum.Spec{Func: funcs[name], Arg: -1}
		if arg == "*" {
			spec.Func = plan.AggCountStar
		} else {
			if rest, ok := strings.CutPrefix(arg, "distinct "); ok {
				spec.Distinct, arg = true, rest
			}
			ord, err := strconv.Atoi(arg)
			if err != nil {
				t.Fatalf("call %q: %v", c, err)
			}
			spec.Arg, spec.ArgType = ord, cfg.Input[ord]
		}
		spec.Type = plan.AggResultType(spec.Func, spec.ArgType)
		cfg.Aggs = append(cfg.Aggs, spec)
		cfg.Names = append(cfg.Names, c)
	}
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

// checkIntegral compares the integrated output with the brute force.
func checkIntegral(t testing.TB, step int, out *exectest.Collector, cfg HashConfig, in *exectest.Integral) {
	t.Helper()
	got, want := strings.Join(out.Rows(), "\n"), strings.Join(bruteResult(cfg, in), "\n")
	if got != want {
		t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", step, got, want)
	}
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
