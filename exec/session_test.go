package exec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// sessConfig builds a configuration from the input types, the group key
// ordinals, the time column, the gap and aggregate calls written as
// "count(*)", "sum(2)", "count(distinct 2)" (arguments are input ordinals).
func sessConfig(t testing.TB, input string, keys []int, timeCol int, gap int64, calls ...string) SessionAggConfig {
	t.Helper()
	cfg := SessionAggConfig{Input: winTypes(t, input), GroupKeys: keys, TimeCol: timeCol, Gap: gap}
	for _, k := range keys {
		cfg.Names = append(cfg.Names, "k"+strconv.Itoa(k))
	}
	cfg.Names = append(cfg.Names, "window_start", "window_end")
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

// sessRun runs steps through a new SessionWindowAgg configured by cfg.
func sessRun(t *testing.T, cfg SessionAggConfig, steps []winStep) *winCollector {
	t.Helper()
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w, err := NewSessionWindowAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return winRun(t, w, NewTestEnv(alloc), steps)
}

// sessKTV is the input of most tests: a key, the time and a value.
const sessKTV = "varchar timestamp(3) bigint"

func TestSessionInOrder(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)", "sum(2)")
	sessRun(t, cfg, []winStep{{
		in: sessKTV + `
			+I a 0 1
			+I a 5 2`,
		want: `+I a 0 15 2 3`,
	}, {
		// 20 is not less than 10 after 5, nor 40 after 29: sessions are
		// separate when their rows are the gap apart exactly.
		in: sessKTV + `
			+I a 20 3
			+I a 29 4
			+I a 39 1`,
		want: `+I a 20 39 2 7
			+I a 39 49 1 1`,
	}, {
		in: sessKTV + `
			+I a 38 5`,
		want: `-D a 39 49 1 1
			-U a 20 39 2 7
			+U a 20 49 4 13`,
	}, {
		ctl: EndOfInput,
	}})
}

func TestSessionOutOfOrder(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "min(2)", "max(2)")
	sessRun(t, cfg, []winStep{{
		in: sessKTV + `
			+I a 100 5`,
		want: `+I a 100 110 5 5`,
	}, {
		// Extends the session at its start.
		in: sessKTV + `
			+I a 93 7`,
		want: `-U a 100 110 5 5
			+U a 93 110 5 7`,
	}, {
		// At its end.
		in: sessKTV + `
			+I a 109 1`,
		want: `-U a 93 110 5 7
			+U a 93 119 1 7`,
	}, {
		// Inside: only the values change.
		in: sessKTV + `
			+I a 95 9`,
		want: `-U a 93 119 1 7
			+U a 93 119 1 9`,
	}, {
		// Inside, without changing any value: no output.
		in: sessKTV + `
			+I a 96 3`,
	}, {
		// A session before it, then within one chunk a row that extends it
		// back and one that opens another.
		in: sessKTV + `
			+I a 70 2
			+I a 61 2
			+I a 40 1`,
		want: `+I a 61 80 2 2
			+I a 40 50 1 1`,
	}})
}

func TestSessionMerge(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)", "sum(2)")
	sessRun(t, cfg, []winStep{{
		in: sessKTV + `
			+I a 0 1
			+I a 15 2
			+I a 30 3
			+I a 45 4`,
		want: `+I a 0 10 1 1
			+I a 15 25 1 2
			+I a 30 40 1 3
			+I a 45 55 1 4`,
	}, {
		// 7 is less than the gap after 0 and before 15: one merge.
		in: sessKTV + `
			+I a 7 10`,
		want: `-D a 15 25 1 2
			-U a 0 10 1 1
			+U a 0 25 3 13`,
	}, {
		// Two bridging rows in one chunk merge three sessions.
		in: sessKTV + `
			+I a 22 20
			+I a 38 30`,
		want: `-D a 30 40 1 3
			-D a 45 55 1 4
			-U a 0 25 3 13
			+U a 0 55 7 70`,
	}, {
		// Sessions opened and merged within one chunk are never emitted on
		// their own.
		in: sessKTV + `
			+I a 100 1
			+I a 115 1
			+I a 130 1
			+I a 108 1
			+I a 123 1`,
		want: `+I a 100 140 5 5`,
	}, {
		ctl: Watermark, wm: 140,
	}, {
		// The state of [100,140) is gone: a (late) row that would have
		// joined it opens a new session.
		in: sessKTV + `
			+I a 135 1`,
		want: `+I a 135 145 1 1`,
	}})
}

func TestSessionKeys(t *testing.T) {
	cfg := sessConfig(t, "bigint varchar timestamp(3) bigint", []int{0, 1}, 2, 10, "count(*)")
	sessRun(t, cfg, []winStep{{
		// Sessions are per key: rows of other keys (a NULL key among them)
		// neither extend nor bridge them.
		in: `bigint varchar timestamp(3) bigint
			+I 1 a 0 0
			+I 1 b 5 0
			+I 2 a 5 0
			+I NULL a 5 0
			+I 1 a 15 0
			+I 1 a 8 0
			+I NULL a 12 0`,
		want: `+I 1 a 0 25 3
			+I 1 b 5 15 1
			+I 2 a 5 15 1
			+I NULL a 5 22 2`,
	}})
}

func TestSessionNoKeys(t *testing.T) {
	cfg := sessConfig(t, sessKTV, nil, 1, 10, "count(*)", "count(distinct 0)")
	sessRun(t, cfg, []winStep{{
		in: sessKTV + `
			+I a 0 0
			+I b 5 0
			+I a 30 0`,
		want: `+I 0 15 2 2
			+I 30 40 1 1`,
	}, {
		in: sessKTV + `
			+I a 22 0
			+I NULL 13 0`,
		want: `-D 30 40 1 1
			-U 0 15 2 2
			+U 0 40 5 2`,
	}})
}

func TestSessionAggregates(t *testing.T) {
	input := "timestamp(3) bigint double decimal(10,2) varchar date"
	cfg := sessConfig(t, input, nil, 0, 10,
		"count(*)", "count(1)", "sum(1)", "avg(1)", "sum(2)", "avg(2)", "sum(3)", "avg(3)",
		"min(4)", "max(4)", "min(3)", "max(2)", "max(5)")
	sessRun(t, cfg, []winStep{{
		in: input + `
			+I 0 NULL NULL NULL NULL NULL`,
		want: `+I 0 10 1 0 NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL`,
	}, {
		in: input + `
			+I 1 4 1.5 2.25 pear 2024-01-02
			+I 2 -9 NaN -0.75 apple NULL
			+I 3 NULL 0.5 NULL '' 2023-12-31`,
		want: `-U 0 10 1 0 NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL
			+U 0 13 4 2 -5 -2.5 NaN NaN 1.50 0.75 '' pear -0.75 1.5 2024-01-02`,
	}})
}

func TestSessionDistinct(t *testing.T) {
	input := "timestamp(3) bigint double decimal(10,2) varchar"
	cfg := sessConfig(t, input, nil, 0, 10,
		"count(distinct 1)", "sum(distinct 1)", "avg(distinct 2)", "sum(distinct 3)", "count(distinct 4)", "min(distinct 1)")
	sessRun(t, cfg, []winStep{{
		in: input + `
			+I 0 1 1.5 1.00 a
			+I 1 1 -0 1.00 a
			+I 2 NULL 0 NULL NULL`,
		want: `+I 0 12 1 1 0.75 1.00 1 1`,
	}, {
		in: input + `
			+I 15 2 1.5 2.00 b
			+I 16 1 4.5 1.00 a`,
		want: `+I 15 26 2 3 3 3.00 2 1`,
	}, {
		// The merge counts a value both sessions saw once.
		in: input + `
			+I 8 3 1.5 1.00 c`,
		want: `-D 15 26 2 3 3 3.00 2 1
			-U 0 12 1 1 0.75 1.00 1 1
			+U 0 26 3 6 2 3.00 3 1`,
	}})
}
