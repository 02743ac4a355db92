// Package brute holds the brute-force oracles that the operator families'
// tests compare operators with, and the small parsers of their test
// configurations: aggregate calls, ORDER BY keys, partitions of an
// integral, and aggregates computed the slow, obvious way. It is test
// support: no operator imports it.
package brute

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/planner/plan"
)

// aggFuncs are the functions Aggs parses.
var aggFuncs = map[string]plan.AggFunc{"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg,
	"min": plan.AggMin, "max": plan.AggMax, "approx_count_distinct": plan.AggApproxCountDistinct}

// Aggs parses aggregate calls over columns of types input, written as
// "count(*)", "sum(1)" or "count(distinct 0)" (arguments are input
// ordinals), into specs with plan.AggResultType's result types.
func Aggs(t testing.TB, input []types.T, calls ...string) []accum.Spec {
	t.Helper()
	var specs []accum.Spec
	for _, c := range calls {
		name, arg, _ := strings.Cut(strings.TrimSuffix(c, ")"), "(")
		spec := accum.Spec{Func: aggFuncs[name], Arg: -1}
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
			spec.Arg, spec.ArgType = ord, input[ord]
		}
		spec.Type = plan.AggResultType(spec.Func, spec.ArgType)
		specs = append(specs, spec)
	}
	return specs
}

// SortKeys parses ORDER BY keys written as "1 desc, 0" (input ordinals).
func SortKeys(t testing.TB, order string) []ordtree.SortKey {
	t.Helper()
	var keys []ordtree.SortKey
	for _, k := range strings.Split(order, ",") {
		f := strings.Fields(k)
		if len(f) == 0 {
			continue
		}
		col, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("order %q: %v", order, err)
		}
		keys = append(keys, ordtree.SortKey{Col: col, Desc: len(f) > 1 && f[1] == "desc"})
	}
	return keys
}

// Partitions returns the rows of in, each as many times as it counts, by
// their values in cols (keyed by exectest.Key).
func Partitions(in *exectest.Integral, cols []int) map[string][][]types.Datum {
	parts := map[string][][]types.Datum{}
	for _, e := range in.Counted() {
		var key []types.Datum
		for _, c := range cols {
			key = append(key, e.Row[c])
		}
		k := exectest.Key(key)
		for range e.N {
			parts[k] = append(parts[k], e.Row)
		}
	}
	return parts
}

// Compare orders rows of types input by the ORDER BY keys, then by every
// column ascending, as the ordered operators (Top-N, the window aggregate)
// rank them.
func Compare(order []ordtree.SortKey, input []types.T, x, y []types.Datum) int {
	for _, k := range order {
		c := types.Compare(x[k.Col], y[k.Col], input[k.Col])
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	for i, t := range input {
		if c := types.Compare(x[i], y[i], t); c != 0 {
			return c
		}
	}
	return 0
}

// Aggregate computes a over rows: DISTINCT by exectest.Key, integers
// summed exactly (math/big), decimals in 128 bits, doubles in row order
// with Neumaier's compensation and infinities and NaNs apart, as eddy's
// accumulators sum them, so that an oracle can compare doubles bit for
// bit.
func Aggregate(a accum.Spec, rows [][]types.Datum) types.Datum {
	if a.Func == plan.AggCountStar {
		return types.IntDatum(int64(len(rows)))
	}
	var vals []types.Datum
	seen := map[string]bool{}
	for _, r := range rows {
		v := r[a.Arg]
		if v.Null {
			continue
		}
		if a.Distinct {
			k := exectest.Key([]types.Datum{v})
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		vals = append(vals, v)
	}
	if a.Func == plan.AggCount {
		return types.IntDatum(int64(len(vals)))
	}
	if len(vals) == 0 {
		return types.NullDatum
	}
	if a.Func == plan.AggMin || a.Func == plan.AggMax {
		best := vals[0]
		for _, v := range vals[1:] {
			c := types.Compare(v, best, a.ArgType)
			if (a.Func == plan.AggMin && c < 0) || (a.Func == plan.AggMax && c > 0) {
				best = v
			}
		}
		return best
	}
	n := float64(len(vals))
	avg := a.Func == plan.AggAvg
	switch a.ArgType.Physical() {
	case types.PhysInt64:
		var s big.Int
		for _, v := range vals {
			s.Add(&s, big.NewInt(v.I))
		}
		if avg {
			f, _ := new(big.Float).SetInt(&s).Float64()
			return types.FloatDatum(f / n)
		}
		return types.IntDatum(s.Int64())
	case types.PhysDecimal:
		var s decimal128.Num
		for _, v := range vals {
			s = s.Add(v.D)
		}
		if avg {
			return types.FloatDatum(s.ToFloat64(int32(a.ArgType.Scale)) / n)
		}
		return types.DecimalDatum(s)
	}
	r := floatSum(vals)
	if avg {
		r /= n
	}
	return types.FloatDatum(r)
}

// floatSum sums doubles in order with Neumaier's compensation, NaNs and
// infinities apart.
func floatSum(vals []types.Datum) float64 {
	var sum, comp float64
	var nan, pinf, ninf bool
	for _, v := range vals {
		switch x := v.F; {
		case math.IsNaN(x):
			nan = true
		case math.IsInf(x, 1):
			pinf = true
		case math.IsInf(x, -1):
			ninf = true
		default:
			s := sum + x
			if math.Abs(sum) >= math.Abs(x) {
				comp += (sum - s) + x
			} else {
				comp += (x - s) + sum
			}
			sum = s
		}
	}
	switch {
	case nan || pinf && ninf:
		return math.NaN()
	case pinf:
		return math.Inf(1)
	case ninf:
		return math.Inf(-1)
	}
	return sum + comp
}

// Apply runs the changes in text (a chunk in exectest's text form) through
// op into out, adds them to in, the integral of op's input, and drops what
// out collected as changes, leaving its integral to Check. It fails t,
// naming the step, at an error.
func Apply(t testing.TB, step int, op exec.Operator, alloc memory.Allocator, in *exectest.Integral, out *exectest.Collector, text string) {
	t.Helper()
	ch := exectest.Chunk(t, alloc, text)
	in.Add(ch)
	err := op.Process(context.Background(), 0, ch, out)
	ch.Batch.Release()
	if err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	out.Take()
}

// Check fails t unless the integral of out is the oracle's rows, want.
func Check(t testing.TB, step int, out *exectest.Collector, want []string) {
	t.Helper()
	if got, want := strings.Join(out.Rows(), "\n"), strings.Join(want, "\n"); got != want {
		t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", step, got, want)
	}
}
