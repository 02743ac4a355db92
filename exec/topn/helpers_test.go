package topn

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/ordtree"
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
	for _, k := range strings.Split(order, ",") {
		f := strings.Fields(k)
		if len(f) == 0 {
			continue
		}
		col, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("order %q: %v", order, err)
		}
		cfg.Order = append(cfg.Order, ordtree.SortKey{Col: col, Desc: len(f) > 1 && f[1] == "desc"})
	}
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
		Oracle: func(in []*exectest.Integral) []string { return brute(cfg, in[0]) }}
	r.Run(t, steps)
}

// checkIntegral compares the integrated output with the brute force.
func checkIntegral(t testing.TB, step int, out *exectest.Collector, cfg Config, in *exectest.Integral) {
	t.Helper()
	got, want := strings.Join(out.Rows(), "\n"), strings.Join(brute(cfg, in), "\n")
	if got != want {
		t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", step, got, want)
	}
}

// brute recomputes the Top-N of the integral in from scratch by sorting
// every partition, as the oracle of the tests: the rows numbered 1..Limit
// of every partition, formatted as the collector integrates them (with
// their row number when the output has one), sorted.
func brute(cfg Config, in *exectest.Integral) []string {
	parts := map[string][][]types.Datum{}
	for _, e := range in.Counted() {
		var key []types.Datum
		for _, c := range cfg.Partition {
			key = append(key, e.Row[c])
		}
		k := exectest.Key(key)
		for range e.N {
			parts[k] = append(parts[k], e.Row)
		}
	}
	outTypes := cfg.Input
	if cfg.RowNumber {
		outTypes = append(slices.Clip(outTypes), types.BigIntT)
	}
	var out []string
	for _, rows := range parts {
		slices.SortFunc(rows, func(x, y []types.Datum) int { return compareRows(cfg, x, y) })
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

// compareRows orders rows by the ORDER BY keys, then by every column
// ascending.
func compareRows(cfg Config, x, y []types.Datum) int {
	for _, k := range cfg.Order {
		c := types.Compare(x[k.Col], y[k.Col], cfg.Input[k.Col])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	for i, t := range cfg.Input {
		if c := types.Compare(x[i], y[i], t); c != 0 {
			return c
		}
	}
	return 0
}
