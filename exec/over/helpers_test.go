package over

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/planner/plan"
)

// config builds a configuration from the input types ("varchar bigint"),
// the partition ordinals, the order keys written as "1 desc, 0", the frame
// and the aggregates written as "sum 2, count *, max 1".
func config(t testing.TB, input string, part []int, order string, frame plan.Frame, aggs string) Config {
	t.Helper()
	in := exectest.Types(t, input)
	cfg := Config{Input: in, Partition: part, Frame: frame, Names: exectest.Names(len(in))}
	cfg.Order = brute.SortKeys(t, order)
	var calls []string
	for i, a := range strings.Split(aggs, ",") {
		f := strings.Fields(a)
		if len(f) != 2 {
			t.Fatalf("aggregate %q: want a function and an ordinal", a)
		}
		calls = append(calls, f[0]+"("+f[1]+")")
		cfg.Names = append(cfg.Names, "a"+strconv.Itoa(i))
	}
	cfg.Aggs = brute.Aggs(t, in, calls...)
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
// each row's frame aggregated and its functions computed on its own, and
// returns them formatted and
// sorted: the oracle of the tests.
func oracle(cfg Config, in *exectest.Integral) []string {
	outTypes := slices.Clone(cfg.Input)
	for _, a := range cfg.Aggs {
		outTypes = append(outTypes, a.Type)
	}
	for _, f := range cfg.Funcs {
		outTypes = append(outTypes, f.Type)
	}
	var out []string
	for _, rows := range brute.Partitions(in, cfg.Partition) {
		slices.SortFunc(rows, func(x, y []types.Datum) int { return brute.Compare(cfg.Order, cfg.Input, x, y) })
		for r, row := range rows {
			lo, hi := frame(cfg, rows, r)
			res := slices.Clone(row)
			for _, a := range cfg.Aggs {
				var in [][]types.Datum
				if lo <= hi {
					in = rows[lo : hi+1]
				}
				res = append(res, brute.Aggregate(a, in))
			}
			res = funcOutputs(cfg, rows, r, res)
			out = append(out, exectest.FormatRow(res, outTypes, exectest.Text))
		}
	}
	slices.Sort(out)
	return out
}

// frame returns the first and last index of row r's frame in its sorted
// partition; lo > hi for an empty frame.
func frame(cfg Config, rows [][]types.Datum, r int) (int, int) {
	firstPeer, lastPeer := r, r
	for firstPeer > 0 && peers(cfg, rows[r], rows[firstPeer-1]) {
		firstPeer--
	}
	for lastPeer+1 < len(rows) && peers(cfg, rows[r], rows[lastPeer+1]) {
		lastPeer++
	}
	n := len(rows)
	if f := cfg.Frame; f.Range {
		// The rows whose value lies within the offsets of row r's, in the
		// window's order; a NULL row's frame is its NULL peers.
		k := cfg.Order[0]
		t := cfg.Input[k.Col]
		in := func(x types.Datum) bool {
			v := rows[r][k.Col]
			if v.Null || x.Null {
				return v.Null && x.Null
			}
			sign := 1.0
			if k.Desc {
				sign = -1
			}
			if t.Physical() == types.PhysFloat64 {
				d := sign * (x.F - v.F) // how far after v, in the window's order
				return (f.Kind == plan.FrameRowsUnbounded || d >= -f.PrecedingF) && (f.Kind == plan.FrameRowsToEnd || d <= f.FollowingF)
			}
			d := sign * (float64(x.I) - float64(v.I))
			return (f.Kind == plan.FrameRowsUnbounded || d >= float64(-f.Preceding)) && (f.Kind == plan.FrameRowsToEnd || d <= float64(f.Following))
		}
		lo, hi := n, -1
		for j := range n {
			before := f.Kind == plan.FrameRowsUnbounded && j < r
			after := f.Kind == plan.FrameRowsToEnd && j > r
			if before || after || in(rows[j][k.Col]) {
				lo, hi = min(lo, j), max(hi, j)
			}
		}
		if lo > hi {
			return 0, -1
		}
		return lo, hi
	}
	if f := cfg.Frame; f.Groups {
		// Number the peer groups, then take the frame's.
		group := make([]int, n)
		for k := 1; k < n; k++ {
			group[k] = group[k-1]
			if !peers(cfg, rows[k-1], rows[k]) {
				group[k]++
			}
		}
		glo, ghi := group[r]-int(f.Preceding), group[r]+int(f.Following)
		lo, hi := n, -1
		for k := range n {
			in := (f.Kind == plan.FrameRowsUnbounded || group[k] >= glo) && (f.Kind == plan.FrameRowsToEnd || group[k] <= ghi)
			if in {
				lo, hi = min(lo, k), max(hi, k)
			}
		}
		if lo > hi {
			return 0, -1
		}
		return lo, hi
	}
	switch f := cfg.Frame; f.Kind {
	case plan.FrameRows:
		return max(0, r-int(f.Preceding)), min(n-1, r+int(f.Following))
	case plan.FrameRowsUnbounded:
		return 0, min(n-1, r+int(f.Following))
	case plan.FrameRowsToEnd:
		return max(0, r-int(f.Preceding)), n - 1
	case plan.FramePeers:
		return 0, lastPeer
	case plan.FramePeersToEnd:
		return firstPeer, n - 1
	}
	return 0, n - 1
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
