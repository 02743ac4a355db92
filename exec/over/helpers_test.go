package over

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// config builds a configuration from the input types ("varchar bigint"),
// the partition ordinals, the order keys written as "1 desc, 0", the frame
// and the aggregates written as "sum 2, count *, max 1".
func config(t testing.TB, input string, part []int, order string, frame plan.Frame, aggs string) Config {
	t.Helper()
	in := exectest.Types(t, input)
	cfg := Config{Input: in, Partition: part, Frame: frame, Names: exectest.Names(len(in))}
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
	funcs := map[string]plan.AggFunc{"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg,
		"min": plan.AggMin, "max": plan.AggMax}
	for i, a := range strings.Split(aggs, ",") {
		f := strings.Fields(a)
		if len(f) != 2 {
			t.Fatalf("aggregate %q: want a function and an ordinal", a)
		}
		spec := accum.Spec{Func: funcs[f[0]], Arg: -1}
		if f[1] == "*" {
			spec.Func = plan.AggCountStar
		} else {
			arg, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("aggregate %q: %v", a, err)
			}
			spec.Arg, spec.ArgType = arg, cfg.Input[arg]
		}
		spec.Type = plan.AggResultType(spec.Func, spec.ArgType)
		cfg.Aggs = append(cfg.Aggs, spec)
		cfg.Names = append(cfg.Names, "a"+strconv.Itoa(i))
	}
	return cfg
}

// runSteps runs steps through a fresh Agg, comparing each step's output
// with its Want (unless AnyOut), the integral of all output, exactly, with
// a brute-force recomputation over the integral of the input (oracle), and
// the rows the state holds with the rows of that integral. The collector
// checks that the output is a minimal changelog.
func runSteps(t *testing.T, cfg Config, steps []exectest.Step) {
	t.Helper()
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := exec.NewTestEnv(exectest.Alloc(t))
	in := exectest.NewIntegral(cfg.Input)
	steps = slices.Clone(steps)
	for i := range steps {
		check := steps[i].Check
		steps[i].Check = func(t *testing.T) {
			t.Helper()
			if rows, want := env.Metrics.StateKeys.Load(), total(in); rows != want {
				t.Fatalf("step %d: state holds %d rows, want %d", i, rows, want)
			}
			if check != nil {
				check(t)
			}
		}
	}
	r := &exectest.Runner{
		Op:     op,
		Env:    env,
		Out:    exectest.NewCollector(t, exectest.CollectorOptions{Minimal: true, Exact: true}),
		Inputs: []*exectest.Integral{in},
		Oracle: func(ins []*exectest.Integral) []string { return oracle(cfg, ins[0]) },
	}
	r.Run(t, steps)
}

// total is the number of rows in an integral.
func total(in *exectest.Integral) int64 {
	var n int64
	for _, e := range in.Counted() {
		n += e.N
	}
	return n
}

// oracle recomputes every output row from scratch, each partition sorted,
// each row's frame aggregated on its own, and returns them formatted and
// sorted: the oracle of the tests.
func oracle(cfg Config, in *exectest.Integral) []string {
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
	outTypes := slices.Clone(cfg.Input)
	for _, a := range cfg.Aggs {
		outTypes = append(outTypes, a.Type)
	}
	var out []string
	for _, rows := range parts {
		slices.SortFunc(rows, func(x, y []types.Datum) int { return compare(cfg, x, y) })
		for r, row := range rows {
			lo, hi := frame(cfg, rows, r)
			res := slices.Clone(row)
			for _, a := range cfg.Aggs {
				res = append(res, aggregate(a, rows[lo:hi+1]))
			}
			out = append(out, exectest.FormatRow(res, outTypes, exectest.Text))
		}
	}
	slices.Sort(out)
	return out
}

// compare orders rows by the ORDER BY keys, then by every column
// ascending, as the operator ranks them.
func compare(cfg Config, x, y []types.Datum) int {
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

// frame returns the first and last index of row r's frame in its sorted
// partition.
func frame(cfg Config, rows [][]types.Datum, r int) (int, int) {
	switch f := cfg.Frame; f.Kind {
	case plan.FrameRows:
		return max(0, r-int(f.Preceding)), r
	case plan.FrameRowsUnbounded:
		return 0, r
	case plan.FramePeers:
		hi := r
		for hi+1 < len(rows) && peers(cfg, rows[r], rows[hi+1]) {
			hi++
		}
		return 0, hi
	}
	return 0, len(rows) - 1
}

// peers reports whether two rows are equal in the ORDER BY columns.
func peers(cfg Config, x, y []types.Datum) bool {
	for _, k := range cfg.Order {
		if types.Compare(x[k.Col], y[k.Col], cfg.Input[k.Col]) != 0 {
			return false
		}
	}
	return true
}

// aggregate computes a over rows, summing in order (doubles with
// Neumaier's compensation, as the operator does).
func aggregate(a accum.Spec, rows [][]types.Datum) types.Datum {
	if a.Func == plan.AggCountStar {
		return types.IntDatum(int64(len(rows)))
	}
	var vals []types.Datum
	for _, r := range rows {
		if !r[a.Arg].Null {
			vals = append(vals, r[a.Arg])
		}
	}
	if a.Func == plan.AggCount {
		return types.IntDatum(int64(len(vals)))
	}
	if len(vals) == 0 {
		return types.NullDatum
	}
	t := a.ArgType
	switch a.Func {
	case plan.AggMin, plan.AggMax:
		best := vals[0]
		for _, v := range vals[1:] {
			c := types.Compare(v, best, t)
			if c < 0 && a.Func == plan.AggMin || c > 0 && a.Func == plan.AggMax {
				best = v
			}
		}
		return best
	}
	n := float64(len(vals))
	switch t.Physical() {
	case types.PhysInt64:
		var s int64
		for _, v := range vals {
			s += v.I
		}
		if a.Func == plan.AggAvg {
			return types.FloatDatum(float64(s) / n)
		}
		return types.IntDatum(s)
	case types.PhysDecimal:
		var s decimal128.Num
		for _, v := range vals {
			s = s.Add(v.D)
		}
		if a.Func == plan.AggAvg {
			return types.FloatDatum(s.ToFloat64(int32(t.Scale)) / n)
		}
		return types.Datum{D: s}
	}
	var sum, comp float64
	var nan, pinf, ninf bool
	for _, v := range vals {
		switch {
		case math.IsNaN(v.F):
			nan = true
			continue
		case math.IsInf(v.F, 1):
			pinf = true
			continue
		case math.IsInf(v.F, -1):
			ninf = true
			continue
		}
		s := sum + v.F
		if math.Abs(sum) >= math.Abs(v.F) {
			comp += (sum - s) + v.F
		} else {
			comp += (v.F - s) + sum
		}
		sum = s
	}
	r := sum + comp
	switch {
	case nan || pinf && ninf:
		r = math.NaN()
	case pinf:
		r = math.Inf(1)
	case ninf:
		r = math.Inf(-1)
	}
	if a.Func == plan.AggAvg {
		r /= n
	}
	return types.FloatDatum(r)
}
