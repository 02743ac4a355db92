package topn

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// testConfig builds a configuration from the input types ("varchar
// bigint"), the partition ordinals, the order keys written as "1 desc, 0"
// and the limit. The columns are named c0, c1, ..., the row number rn.
func testConfig(t testing.TB, input string, part []int, order string, limit int64, rowNumber, appendOnly bool) Config {
	t.Helper()
	ts := exectest.Types(t, input)
	cfg := Config{Input: ts, Partition: part, Limit: limit, RowNumber: rowNumber, AppendOnly: appendOnly,
		Names: exectest.Names(len(ts))}
	if rowNumber {
		cfg.Names = append(cfg.Names, "rn")
	}
	cfg.Order = brute.SortKeys(t, order)
	return cfg
}

// newCollector returns a collector of a Top-N's output: a minimal
// changelog, timestamps rendered as SQL prints them.
func newCollector(t testing.TB) *exectest.Collector {
	return exectest.NewCollector(t, exectest.CollectorOptions{Minimal: true})
}

// runSteps runs steps through a fresh Top-N on a checked allocator,
// comparing each step's output with its Want and the integral of all
// output with a brute-force Top-N of the integral of the input. It stops
// at the first step that expects an error. check, if not nil, is called
// after every step with the metrics.
func runSteps(t *testing.T, cfg Config, steps []exectest.Step, check func(step int, m *exec.OperatorMetrics)) {
	t.Helper()
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := exec.NewTestEnv(exectest.Alloc(t))
	if check != nil {
		steps = slices.Clone(steps)
		for i := range steps {
			steps[i].Check = func(*testing.T) { check(i, env.Metrics) }
		}
	}
	r := &exectest.Runner{Op: op, Env: env, Out: newCollector(t),
		Inputs: []*exectest.Integral{exectest.NewIntegral(cfg.Input)},
		Oracle: func(in []*exectest.Integral) []string { return bruteTopN(cfg, in[0]) }}
	r.Run(t, steps)
}

// bruteTopN recomputes the Top-N of the integral in from scratch by sorting
// every partition, as the oracle of the tests: the rows numbered 1..Limit
// of every partition, formatted as the collector integrates them (with
// their row number when the output has one), sorted.
func bruteTopN(cfg Config, in *exectest.Integral) []string {
	outTypes := cfg.Input
	if cfg.RowNumber {
		outTypes = append(slices.Clip(outTypes), types.BigIntT)
	}
	var out []string
	for _, rows := range brute.Partitions(in, cfg.Partition) {
		slices.SortFunc(rows, func(x, y []types.Datum) int { return brute.Compare(cfg.Order, cfg.Input, x, y) })
		for i, row := range rows[:min(int64(len(rows)), cfg.Limit)] {
			if cfg.RowNumber {
				row = append(slices.Clip(row), types.IntDatum(int64(i+1)))
			}
			out = append(out, exectest.RoundRow(row, outTypes, exectest.Text))
		}
	}
	slices.Sort(out)
	return out
}
