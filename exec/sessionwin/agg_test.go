package sessionwin

import (
	"strconv"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// testConfig builds a configuration from the input types, the group key
// ordinals, the time column, the gap and aggregate calls written as
// "count(*)", "sum(2)", "count(distinct 2)" (brute.Aggs).
func testConfig(t testing.TB, input string, keys []int, timeCol int, gap int64, calls ...string) Config {
	t.Helper()
	cfg := Config{Input: exectest.Types(t, input), GroupKeys: keys, TimeCol: timeCol, Gap: gap}
	for _, k := range keys {
		cfg.Names = append(cfg.Names, "k"+strconv.Itoa(k))
	}
	cfg.Names = append(cfg.Names, "window_start", "window_end")
	cfg.Aggs = brute.Aggs(t, cfg.Input, calls...)
	cfg.Names = append(cfg.Names, calls...)
	return cfg
}

// newAgg returns a new Agg configured by cfg, and a test environment whose
// allocator must be empty when t ends.
func newAgg(t *testing.T, cfg Config) (*Agg, *exec.Env) {
	t.Helper()
	w, err := NewAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w, exec.NewTestEnv(exectest.Alloc(t))
}

// runAgg runs steps through a new Agg configured by cfg.
func runAgg(t *testing.T, cfg Config, steps []exectest.Step) *exectest.Collector {
	t.Helper()
	w, env := newAgg(t, cfg)
	return runSteps(t, w, env, steps)
}

// runSteps runs steps through op with env, the output rendered with
// timestamps in ms, and returns the collector of the output.
func runSteps(t *testing.T, op exec.Operator, env *exec.Env, steps []exectest.Step) *exectest.Collector {
	t.Helper()
	r := &exectest.Runner{Op: op, Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})}
	r.Run(t, steps)
	return r.Out
}

// ktv is the input of most tests: a key, the time and a value.
const ktv = "varchar timestamp(3) bigint"

func TestSessionInOrder(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)", "sum(2)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktv + `
			+I a 0 1
			+I a 5 2`,
		Want: `+I a 0 15 2 3`,
	}, {
		// 20 is not less than 10 after 5, nor 40 after 29: sessions are
		// separate when their rows are the gap apart exactly.
		In: ktv + `
			+I a 20 3
			+I a 29 4
			+I a 39 1`,
		Want: `+I a 20 39 2 7
			+I a 39 49 1 1`,
	}, {
		In: ktv + `
			+I a 38 5`,
		Want: `-D a 39 49 1 1
			-U a 20 39 2 7
			+U a 20 49 4 13`,
	}, {
		Ctl: exectest.Control(exec.EndOfInput),
	}})
}

func TestSessionOutOfOrder(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "min(2)", "max(2)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktv + `
			+I a 100 5`,
		Want: `+I a 100 110 5 5`,
	}, {
		// Extends the session at its start.
		In: ktv + `
			+I a 93 7`,
		Want: `-U a 100 110 5 5
			+U a 93 110 5 7`,
	}, {
		// At its end.
		In: ktv + `
			+I a 109 1`,
		Want: `-U a 93 110 5 7
			+U a 93 119 1 7`,
	}, {
		// Inside: only the values change.
		In: ktv + `
			+I a 95 9`,
		Want: `-U a 93 119 1 7
			+U a 93 119 1 9`,
	}, {
		// Inside, without changing any value: no output.
		In: ktv + `
			+I a 96 3`,
	}, {
		// A session before it, then within one chunk a row that extends it
		// back and one that opens another.
		In: ktv + `
			+I a 70 2
			+I a 61 2
			+I a 40 1`,
		Want: `+I a 61 80 2 2
			+I a 40 50 1 1`,
	}})
}

func TestSessionMerge(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)", "sum(2)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktv + `
			+I a 0 1
			+I a 15 2
			+I a 30 3
			+I a 45 4`,
		Want: `+I a 0 10 1 1
			+I a 15 25 1 2
			+I a 30 40 1 3
			+I a 45 55 1 4`,
	}, {
		// 7 is less than the gap after 0 and before 15: one merge.
		In: ktv + `
			+I a 7 10`,
		Want: `-D a 15 25 1 2
			-U a 0 10 1 1
			+U a 0 25 3 13`,
	}, {
		// Two bridging rows in one chunk merge three sessions.
		In: ktv + `
			+I a 22 20
			+I a 38 30`,
		Want: `-D a 30 40 1 3
			-D a 45 55 1 4
			-U a 0 25 3 13
			+U a 0 55 7 70`,
	}, {
		// Sessions opened and merged within one chunk are never emitted on
		// their own.
		In: ktv + `
			+I a 100 1
			+I a 115 1
			+I a 130 1
			+I a 108 1
			+I a 123 1`,
		Want: `+I a 100 140 5 5`,
	}, {
		Ctl: exectest.Watermark(140),
	}, {
		// The state of [100,140) is gone: a (late) row that would have
		// joined it opens a new session.
		In: ktv + `
			+I a 135 1`,
		Want: `+I a 135 145 1 1`,
	}})
}

func TestSessionKeys(t *testing.T) {
	cfg := testConfig(t, "bigint varchar timestamp(3) bigint", []int{0, 1}, 2, 10, "count(*)")
	runAgg(t, cfg, []exectest.Step{{
		// Sessions are per key: rows of other keys (a NULL key among them)
		// neither extend nor bridge them.
		In: `bigint varchar timestamp(3) bigint
			+I 1 a 0 0
			+I 1 b 5 0
			+I 2 a 5 0
			+I NULL a 5 0
			+I 1 a 15 0
			+I 1 a 8 0
			+I NULL a 12 0`,
		Want: `+I 1 a 0 25 3
			+I 1 b 5 15 1
			+I 2 a 5 15 1
			+I NULL a 5 22 2`,
	}})
}

func TestSessionNoKeys(t *testing.T) {
	cfg := testConfig(t, ktv, nil, 1, 10, "count(*)", "count(distinct 0)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktv + `
			+I a 0 0
			+I b 5 0
			+I a 30 0`,
		Want: `+I 0 15 2 2
			+I 30 40 1 1`,
	}, {
		In: ktv + `
			+I a 22 0
			+I NULL 13 0`,
		Want: `-D 30 40 1 1
			-U 0 15 2 2
			+U 0 40 5 2`,
	}})
}

func TestSessionAggregates(t *testing.T) {
	input := "timestamp(3) bigint double decimal(10,2) varchar date"
	cfg := testConfig(t, input, nil, 0, 10,
		"count(*)", "count(1)", "sum(1)", "avg(1)", "sum(2)", "avg(2)", "sum(3)", "avg(3)",
		"min(4)", "max(4)", "min(3)", "max(2)", "max(5)")
	runAgg(t, cfg, []exectest.Step{{
		In: input + `
			+I 0 NULL NULL NULL NULL NULL`,
		Want: `+I 0 10 1 0 NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL`,
	}, {
		In: input + `
			+I 1 4 1.5 2.25 pear 2024-01-02
			+I 2 -9 NaN -0.75 apple NULL
			+I 3 NULL 0.5 NULL '' 2023-12-31`,
		Want: `-U 0 10 1 0 NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL
			+U 0 13 4 2 -5 -2.5 NaN NaN 1.50 0.75 '' pear -0.75 1.5 2024-01-02`,
	}})
}

func TestSessionDistinct(t *testing.T) {
	input := "timestamp(3) bigint double decimal(10,2) varchar"
	cfg := testConfig(t, input, nil, 0, 10,
		"count(distinct 1)", "sum(distinct 1)", "avg(distinct 2)", "sum(distinct 3)", "count(distinct 4)", "min(distinct 1)")
	runAgg(t, cfg, []exectest.Step{{
		In: input + `
			+I 0 1 1.5 1.00 a
			+I 1 1 -0 1.00 a
			+I 2 NULL 0 NULL NULL`,
		Want: `+I 0 12 1 1 0.75 1.00 1 1`,
	}, {
		In: input + `
			+I 15 2 1.5 2.00 b
			+I 16 1 4.5 1.00 a`,
		Want: `+I 15 26 2 3 3 3.00 2 1`,
	}, {
		// The merge counts a value both sessions saw once.
		In: input + `
			+I 8 3 1.5 1.00 c`,
		Want: `-D 15 26 2 3 3 3.00 2 1
			-U 0 12 1 1 0.75 1.00 1 1
			+U 0 26 3 6 2 3.00 3 1`,
	}})
}

// TestSessionSumsAsHashAgg checks that a session sums doubles as the hash
// aggregate does (accum.FloatSum): compensated, so that a large value and
// its opposite leave the small ones, also across a merge of sessions.
func TestSessionSumsAsHashAgg(t *testing.T) {
	const ktd = "varchar timestamp(3) double"
	cfg := testConfig(t, ktd, nil, 1, 10, "sum(2)", "avg(2)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktd + `
			+I a 0 1e100
			+I a 1 1
			+I a 15 -1e100`,
		Want: `+I 0 11 1e+100 5e+99
			+I 15 25 -1e+100 -1e+100`,
	}, {
		// Bridges the two sessions.
		In: ktd + `
			+I a 8 0.5`,
		Want: `-D 15 25 -1e+100 -1e+100
			-U 0 11 1e+100 5e+99
			+U 0 25 1.5 0.375`,
	}})
}
