package exec

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// overaggConfig builds a configuration from the input types ("varchar
// bigint"), the partition ordinals, the order keys written as "1 desc, 0",
// the frame and the aggregates written as "sum 2, count *, max 1".
func overaggConfig(t testing.TB, input string, part []int, order string, frame plan.Frame, aggs string) OverAggConfig {
	t.Helper()
	top := topnConfig(t, input, part, order, 1, false, false)
	cfg := OverAggConfig{Input: top.Input, Partition: part, Order: top.Order, Frame: frame, Names: top.Names}
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

// overaggRunSteps runs steps through a fresh OverAgg, comparing each
// step's output with its want (unless want is "?") and the integral of all
// output with a brute-force recomputation over the integral of the input.
// The collector checks that the output is a minimal changelog.
func overaggRunSteps(t *testing.T, cfg OverAggConfig, steps []topnStep) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	op, err := NewOverAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := NewTestEnv(alloc)
	if err := op.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	out := newTopNCollector(t)
	brute := &overaggBrute{cfg: cfg, rows: map[string]*topnCounted{}}
	for i, st := range steps {
		ch := aggChunk(t, alloc, st.in)
		brute.add(ch)
		err := op.Process(ctx, 0, ch, out)
		ch.Batch.Release()
		if st.err != nil {
			if !errors.Is(err, st.err) {
				t.Fatalf("step %d: got error %v, want %v", i, err, st.err)
			}
			return
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := out.take(), strings.TrimSpace(st.want); want != "?" && got != want {
			t.Fatalf("step %d: emitted\n%s\nwant\n%s", i, got, want)
		}
		got, want := out.rows(), brute.result()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if rows := env.Metrics.StateKeys.Load(); rows != brute.total() {
			t.Fatalf("step %d: state holds %d rows, want %d", i, rows, brute.total())
		}
	}
}

// overaggBrute integrates an input changelog and recomputes every output
// row from scratch: each partition sorted, each row's frame summed on its
// own, as the oracle of the tests.
type overaggBrute struct {
	cfg  OverAggConfig
	rows map[string]*topnCounted
}

func (b *overaggBrute) add(ch Chunk) {
	(&topnBrute{cfg: TopNConfig{Input: b.cfg.Input}, rows: b.rows}).add(ch)
}

// total is the number of rows in the integral.
func (b *overaggBrute) total() int64 {
	var n int64
	for _, e := range b.rows {
		n += e.n
	}
	return n
}

// result returns every output row, formatted and sorted.
func (b *overaggBrute) result() []string {
	parts := map[string][][]types.Datum{}
	for _, e := range b.rows {
		var key []types.Datum
		for _, c := range b.cfg.Partition {
			key = append(key, e.row[c])
		}
		k := aggDatumsKey(key)
		for range e.n {
			parts[k] = append(parts[k], e.row)
		}
	}
	outTypes := slices.Clone(b.cfg.Input)
	for _, a := range b.cfg.Aggs {
		outTypes = append(outTypes, a.Type)
	}
	top := &topnBrute{cfg: TopNConfig{Input: b.cfg.Input, Order: b.cfg.Order}}
	var out []string
	for _, rows := range parts {
		slices.SortFunc(rows, top.compare)
		for r, row := range rows {
			lo, hi := b.frame(rows, r)
			res := slices.Clone(row)
			for _, a := range b.cfg.Aggs {
				res = append(res, b.aggregate(a, rows[lo:hi+1]))
			}
			out = append(out, aggFormatRow(res, outTypes))
		}
	}
	slices.Sort(out)
	return out
}

// frame returns the first and last index of row r's frame in its sorted
// partition.
func (b *overaggBrute) frame(rows [][]types.Datum, r int) (int, int) {
	switch f := b.cfg.Frame; f.Kind {
	case plan.FrameRows:
		return max(0, r-int(f.Preceding)), r
	case plan.FrameRowsUnbounded:
		return 0, r
	case plan.FramePeers:
		hi := r
		for hi+1 < len(rows) && b.peers(rows[r], rows[hi+1]) {
			hi++
		}
		return 0, hi
	}
	return 0, len(rows) - 1
}

// peers reports whether two rows are equal in the ORDER BY columns.
func (b *overaggBrute) peers(x, y []types.Datum) bool {
	for _, k := range b.cfg.Order {
		if types.Compare(x[k.Col], y[k.Col], b.cfg.Input[k.Col]) != 0 {
			return false
		}
	}
	return true
}

// aggregate computes a over rows, summing in order (doubles with
// Neumaier's compensation, as the operator does).
func (b *overaggBrute) aggregate(a accum.Spec, rows [][]types.Datum) types.Datum {
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
