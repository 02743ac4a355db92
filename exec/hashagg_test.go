package exec

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// aggConfig builds a configuration from the input types ("bigint varchar"),
// the group key ordinals and aggregate calls written as "count(*)",
// "sum(1)", "count(distinct 0)" (arguments are input ordinals).
func aggConfig(t testing.TB, input string, keys []int, calls ...string) HashAggConfig {
	t.Helper()
	cfg := HashAggConfig{GroupKeys: keys}
	for _, f := range strings.Fields(input) {
		typ, err := types.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Input = append(cfg.Input, typ)
	}
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

// aggStep is one step of an operator test: a chunk in text form (or "" for
// a control message) and the changelog it must emit, or the error it must
// fail with.
type aggStep struct {
	in   string
	want string
	err  error
}

// aggRunSteps runs steps through a fresh HashAgg, comparing each step's
// output with its want and the integral of all output with a brute-force
// recomputation. It stops at the first step that expects an error.
func aggRunSteps(t *testing.T, cfg HashAggConfig, steps []aggStep) {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	h := NewHashAgg(cfg)
	ctx := context.Background()
	if err := h.Open(ctx, NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out := newAggCollector(t, len(cfg.GroupKeys))
	brute := newAggBrute(cfg)
	for i, st := range steps {
		var err error
		if st.in == "" {
			err = h.OnControl(ctx, Control{Kind: Watermark, Watermark: int64(i)}, out)
		} else {
			ch := aggChunk(t, alloc, st.in)
			brute.add(ch)
			err = h.Process(ctx, 0, ch, out)
			ch.Batch.Release()
		}
		if st.err != nil {
			if !errors.Is(err, st.err) {
				t.Fatalf("step %d: got error %v, want %v", i, err, st.err)
			}
			return
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, want := out.take(), strings.TrimSpace(st.want); got != want {
			t.Fatalf("step %d: emitted\n%s\nwant\n%s", i, got, want)
		}
		aggCheckIntegral(t, i, out, brute)
	}
}

// aggCheckIntegral compares the integrated output with the brute force.
func aggCheckIntegral(t testing.TB, step int, out *aggCollector, brute *aggBrute) {
	t.Helper()
	got, want := out.rows(), brute.result()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("step %d: integrated output\n%s\nbrute force\n%s", step,
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestHashAggBigint(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0},
		"count(*)", "count(1)", "sum(1)", "avg(1)", "min(1)", "max(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 10\n+I 1 20\n+I 2 5", want: `
+I 1 2 2 30 15 10 20
+I 2 1 1 5 5 5 5`},
		// Retracting the current maximum finds the next one.
		{in: "bigint bigint\n-D 1 20", want: `
-U 1 2 2 30 15 10 20
+U 1 1 1 10 10 10 10`},
		// A NULL argument counts for COUNT(*) only.
		{in: "bigint bigint\n+I 2 NULL", want: `
-U 2 1 1 5 5 5 5
+U 2 2 1 5 5 5 5`},
		// A group that loses its last row is deleted...
		{in: "bigint bigint\n-D 1 10", want: `-D 1 1 1 10 10 10 10`},
		// ... and comes back as new.
		{in: "bigint bigint\n+I 1 7", want: `+I 1 1 1 7 7 7 7`},
		// An update pair.
		{in: "bigint bigint\n-U 1 7\n+U 1 8", want: `
-U 1 1 1 7 7 7 7
+U 1 1 1 8 8 8 8`},
		// A group created and emptied within one batch emits nothing.
		{in: "bigint bigint\n+I 3 1\n-D 3 1", want: ``},
		// Several changes to one group emit once, after the whole batch.
		{in: "bigint bigint\n+I 2 -4\n+I 2 6\n-D 2 NULL", want: `
-U 2 2 1 5 5 5 5
+U 2 3 3 7 2.3333333333333335 -4 6`},
		// Retracting the minimum and the maximum of a group at once.
		{in: "bigint bigint\n-D 2 -4\n-D 2 6", want: `
-U 2 3 3 7 2.3333333333333335 -4 6
+U 2 1 1 5 5 5 5`},
	})
}

func TestHashAggUnchangedEmitsNothing(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0}, "max(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 10", want: `+I 1 10`},
		{in: "bigint bigint\n+I 1 5", want: ``},
		{in: "bigint bigint\n-D 1 5", want: ``},
		{in: "bigint bigint\n+I 1 10", want: ``},
		{in: "bigint bigint\n-D 1 10", want: ``},
		{in: "bigint bigint\n-U 1 10\n+U 1 10", want: ``},
		{in: "bigint bigint\n-D 1 10", want: `-D 1 10`},
	})
}

func TestHashAggNullKeysAndArgs(t *testing.T) {
	cfg := aggConfig(t, "varchar bigint", []int{0}, "count(*)", "count(1)", "sum(1)", "min(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "varchar bigint\n+I NULL 1\n+I NULL NULL\n+I a NULL\n+I '' 3", want: `
+I NULL 2 1 1 1
+I a 1 0 NULL NULL
+I '' 1 1 3 3`},
		{in: "varchar bigint\n-D NULL 1", want: `
-U NULL 2 1 1 1
+U NULL 1 0 NULL NULL`},
		{in: "varchar bigint\n-D NULL NULL\n-D a NULL", want: `
-D NULL 1 0 NULL NULL
-D a 1 0 NULL NULL`},
		{in: "varchar bigint\n+I NULL 4", want: `+I NULL 1 1 4 4`},
	})
}

func TestHashAggNullIntKey(t *testing.T) {
	cfg := aggConfig(t, "date bigint", []int{0}, "sum(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "date bigint\n+I NULL 1\n+I 2024-01-01 2\n+I NULL 3", want: `
+I NULL 4
+I 2024-01-01 2`},
		{in: "date bigint\n-D NULL 1\n-D NULL 3", want: `-D NULL 4`},
		{in: "date bigint\n+I NULL 5", want: `+I NULL 5`},
	})
}

func TestHashAggDistinct(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0},
		"count(distinct 1)", "sum(distinct 1)", "avg(distinct 1)", "count(1)", "max(distinct 1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint\n+I 1 5\n+I 1 5\n+I 1 7\n+I 1 NULL", want: `+I 1 2 12 6 3 7`},
		{in: "bigint bigint\n-D 1 5", want: `
-U 1 2 12 6 3 7
+U 1 2 12 6 2 7`},
		{in: "bigint bigint\n-D 1 5", want: `
-U 1 2 12 6 2 7
+U 1 1 7 7 1 7`},
		{in: "bigint bigint\n+I 1 7\n-D 1 7", want: ``},
		{in: "bigint bigint\n-D 1 NULL\n-D 1 7", want: `-D 1 1 7 7 1 7`},
	})
}

func TestHashAggDistinctStringsAndDoubles(t *testing.T) {
	cfg := aggConfig(t, "varchar double", nil, "count(distinct 0)", "sum(distinct 1)", "count(distinct 1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "varchar double\n+I a 1.5\n+I b 1.5\n+I a -0\n+I A 0", want: `+I 3 1.5 2`},
		{in: "varchar double\n-D a 1.5\n-D b 1.5", want: `
-U 3 1.5 2
+U 2 0 1`},
	})
}

func TestHashAggGlobalEmptyInput(t *testing.T) {
	cfg := aggConfig(t, "bigint", nil, "count(*)", "sum(0)", "min(0)", "avg(0)", "count(0)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "", want: `+I 0 NULL NULL NULL 0`},
		{in: "", want: ``},
		{in: "bigint\n+I 5", want: `
-U 0 NULL NULL NULL 0
+U 1 5 5 5 1`},
		{in: "bigint\n-D 5", want: `
-U 1 5 5 5 1
+U 0 NULL NULL NULL 0`},
		{in: "bigint\n+I NULL\n-D NULL", want: ``},
	})
}

func TestHashAggGlobalFirstBatch(t *testing.T) {
	cfg := aggConfig(t, "bigint", nil, "count(*)", "max(0)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint\n+I 5\n+I 6", want: `+I 2 6`},
		{in: "", want: ``},
		{in: "bigint\n+I 1", want: `
-U 2 6
+U 3 6`},
	})
	// An empty batch before anything else emits the initial row.
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint", want: `+I 0 NULL`},
		{in: "bigint", want: ``},
	})
}

func TestHashAggMultiColumnKeys(t *testing.T) {
	cfg := aggConfig(t, "varchar date bigint", []int{1, 0}, "sum(2)", "count(*)")
	aggRunSteps(t, cfg, []aggStep{
		{in: `varchar date bigint
+I x 2024-01-01 1
+I y 2024-01-01 2
+I x 2024-01-02 3
+I x 2024-01-01 4
+I NULL 2024-01-01 5
+I x NULL 6
+I NULL NULL 7
+I '' NULL 8`, want: `
+I 2024-01-01 x 5 2
+I 2024-01-01 y 2 1
+I 2024-01-02 x 3 1
+I 2024-01-01 NULL 5 1
+I NULL x 6 1
+I NULL NULL 7 1
+I NULL '' 8 1`},
		{in: "varchar date bigint\n-D x 2024-01-01 1\n-D NULL NULL 7", want: `
-U 2024-01-01 x 5 2
+U 2024-01-01 x 4 1
-D NULL NULL 7 1`},
	})
}

func TestHashAggTypes(t *testing.T) {
	in := "double decimal(10,2) varchar date timestamp(3) boolean"
	cfg := aggConfig(t, in, nil,
		"min(0)", "max(0)", "sum(0)", "avg(0)",
		"min(1)", "max(1)", "sum(1)", "avg(1)",
		"min(2)", "max(2)", "min(3)", "max(3)", "min(4)", "max(4)", "min(5)", "max(5)")
	hdr := in + "\n"
	aggRunSteps(t, cfg, []aggStep{
		{in: hdr + `+I 1.5 10.25 b 2024-01-02 2024-01-01T00:00:01.5 true
+I -2.5 3.10 a 2024-01-01 2024-01-01T00:00:00 false
+I NULL NULL NULL NULL NULL NULL`,
			want: `+I -2.5 1.5 -1 -0.5 3.10 10.25 13.35 6.675 a b 2024-01-01 2024-01-02 2024-01-01 00:00:00.000 2024-01-01 00:00:01.500 false true`},
		{in: hdr + `-D -2.5 3.10 a 2024-01-01 2024-01-01T00:00:00 false`, want: `
-U -2.5 1.5 -1 -0.5 3.10 10.25 13.35 6.675 a b 2024-01-01 2024-01-02 2024-01-01 00:00:00.000 2024-01-01 00:00:01.500 false true
+U 1.5 1.5 1.5 1.5 10.25 10.25 10.25 10.25 b b 2024-01-02 2024-01-02 2024-01-01 00:00:01.500 2024-01-01 00:00:01.500 true true`},
		{in: hdr + `-D 1.5 10.25 b 2024-01-02 2024-01-01T00:00:01.5 true`, want: `
-U 1.5 1.5 1.5 1.5 10.25 10.25 10.25 10.25 b b 2024-01-02 2024-01-02 2024-01-01 00:00:01.500 2024-01-01 00:00:01.500 true true
+U NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL`},
	})
}

func TestHashAggTypesAppendOnly(t *testing.T) {
	in := "varchar double decimal(10,2) date"
	cfg := aggConfig(t, in, []int{0}, "min(1)", "max(1)", "min(2)", "max(2)", "min(3)", "max(3)", "max(0)")
	cfg.AppendOnly = true
	hdr := in + "\n"
	aggRunSteps(t, cfg, []aggStep{
		{in: hdr + "+I k 1.5 2.00 2024-01-02\n+I k NULL NULL NULL", want: `+I k 1.5 1.5 2.00 2.00 2024-01-02 2024-01-02 k`},
		{in: hdr + "+I k 0.5 3.00 2024-01-01", want: `
-U k 1.5 1.5 2.00 2.00 2024-01-02 2024-01-02 k
+U k 0.5 1.5 2.00 3.00 2024-01-01 2024-01-02 k`},
		{in: hdr + "+I k 1 2.50 2024-01-01", want: ``},
		{in: hdr + "-D k 1 2.50 2024-01-01", err: errAggAppendOnly},
	})
}

func TestHashAggFloatSumRetraction(t *testing.T) {
	cfg := aggConfig(t, "bigint double", []int{0}, "sum(1)", "avg(1)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint double\n+I 1 1e20\n+I 1 1\n+I 1 Inf", want: `+I 1 Infinity Infinity`},
		{in: "bigint double\n-D 1 Inf", want: `
-U 1 Infinity Infinity
+U 1 100000000000000000000 50000000000000000000`},
		{in: "bigint double\n-D 1 1e20", want: `
-U 1 100000000000000000000 50000000000000000000
+U 1 1 1`},
	})
}

func TestHashAggCountNull(t *testing.T) {
	cfg := aggConfig(t, "bigint bigint", []int{0}, "count(*)", "count(1)")
	cfg.Input = append(cfg.Input, types.NullT)
	cfg.Aggs = append(cfg.Aggs, accum.Spec{Func: plan.AggCount, Arg: 2, ArgType: types.NullT, Type: types.BigIntT}, accum.Spec{Func: plan.AggCount, Distinct: true, Arg: 2, ArgType: types.NullT, Type: types.BigIntT})
	cfg.Names = append(cfg.Names, "count(null)", "count(distinct null)")
	aggRunSteps(t, cfg, []aggStep{
		{in: "bigint bigint null\n+I 1 5 NULL\n+I 1 NULL NULL", want: `+I 1 2 1 0 0`},
		{in: "bigint bigint null\n-D 1 5 NULL", want: `
-U 1 2 1 0 0
+U 1 1 0 0 0`},
	})
}
