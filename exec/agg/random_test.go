package agg

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/brute"
)

// domains are the values the randomized test draws from (brute.Domains),
// with -0 among the doubles: GROUP BY and DISTINCT put it with 0.
var domains = func() map[string][]string {
	d := maps.Clone(brute.Domains)
	d["double"] = append(slices.Clone(d["double"]), "-0")
	return d
}()

func TestHashAggRandomized(t *testing.T) {
	cases := []struct {
		name       string
		input      string
		keys       []int
		calls      []string
		appendOnly bool
	}{
		{"bigint-key", "bigint bigint", []int{0}, []string{"count(*)", "count(1)", "sum(1)", "avg(1)",
			"min(1)", "max(1)", "count(distinct 1)", "sum(distinct 1)", "avg(distinct 1)"}, false},
		{"string-key-doubles", "varchar double", []int{0}, []string{"count(*)", "sum(1)", "avg(1)",
			"min(1)", "max(1)", "count(distinct 1)", "sum(distinct 1)"}, false},
		{"two-keys-decimals", "bigint varchar decimal(10,2)", []int{1, 0}, []string{"sum(2)", "avg(2)",
			"min(2)", "max(2)", "count(distinct 2)", "sum(distinct 2)", "min(1)"}, false},
		{"double-key", "double bigint", []int{0}, []string{"count(*)", "max(1)"}, false},
		// Keys of integers and doubles only: grouped by hash within the
		// batch (groupFixed), falling back to encoded keys for a batch
		// with a NULL key.
		{"int-keys", "bigint timestamp(3) bigint", []int{0, 1}, []string{"count(*)", "sum(2)", "max(2)"}, false},
		{"int-double-keys", "bigint double bigint", []int{1, 0}, []string{"count(*)", "min(2)", "count(distinct 2)"}, true},
		{"global-temporal", "bigint date timestamp(3) boolean", nil, []string{"count(*)", "min(1)",
			"max(1)", "min(2)", "max(2)", "min(3)", "max(3)", "count(distinct 1)", "sum(0)"}, false},
		{"append-only", "bigint varchar bigint", []int{0}, []string{"min(1)", "max(1)", "min(2)",
			"max(2)", "sum(2)", "count(distinct 1)"}, true},
		{"append-only-global", "varchar double", nil, []string{"min(0)", "max(1)", "avg(1)"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.keys, tc.calls...)
			cfg.AppendOnly = tc.appendOnly
			for seed := range uint64(8) {
				randomRun(t, cfg, tc.input, rand.New(rand.NewPCG(seed, 42)), 12)
			}
			// Large batches: every group gets many rows per batch, some
			// retracting rows inserted earlier in the same batch, so that
			// the per-batch folding and the inline multisets (spilling past
			// four values, moving back under three) meet retractions.
			for seed := range uint64(3) {
				randomRun(t, cfg, tc.input, rand.New(rand.NewPCG(seed, 7)), 300)
			}
		})
	}
}

// randomRun feeds random batches of 1 to maxChanges inserts, deletes and
// updates (only ever retracting rows inserted before, possibly in the same
// batch) and checks the integrated output against the brute force after
// every batch.
func randomRun(t *testing.T, cfg HashConfig, input string, r *rand.Rand, maxChanges int) {
	h := openAgg(t, cfg)
	alloc, ctx := h.env.Alloc, context.Background()
	out := newCollector(t, cfg)
	in := exectest.NewIntegral(cfg.Input)
	changes := &brute.Changes{Rand: r, Row: brute.RandomRow(r, input, domains), AppendOnly: cfg.AppendOnly}
	for batch := range 60 {
		lines := append([]string{input}, changes.Next(maxChanges)...)
		brute.Apply(t, batch, h, alloc, in, out, strings.Join(lines, "\n"))
		brute.Check(t, batch, out, bruteResult(cfg, in))
		if r.IntN(10) == 0 {
			if err := h.OnControl(ctx, exec.Control{Kind: exec.Flush}, out); err != nil {
				t.Fatal(err)
			}
			if got := out.Take(); got != "" {
				t.Fatalf("control after batch %d emitted %q", batch, got)
			}
		}
	}
}

// openAgg returns a HashAgg of cfg opened in a test environment with a
// checked allocator, closed when t ends.
func openAgg(t *testing.T, cfg HashConfig) *HashAgg {
	t.Helper()
	h := NewHashAgg(cfg)
	if err := h.Open(context.Background(), exec.NewTestEnv(exectest.Alloc(t))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// checkpointCase is an aggregate and the steps of its random input.
type checkpointCase struct {
	name       string
	input      string
	keys       []int
	calls      []string
	appendOnly bool
	close      *WindowClose
}

func TestHashAggRestoreContinuesTheRun(t *testing.T) {
	for _, tc := range []checkpointCase{
		{name: "bigint-key", input: "bigint bigint", keys: []int{0}, calls: []string{"count(*)", "count(1)", "sum(1)",
			"avg(1)", "min(1)", "max(1)", "count(distinct 1)", "sum(distinct 1)"}},
		{name: "string-key-doubles", input: "varchar double", keys: []int{0}, calls: []string{"count(*)", "sum(1)",
			"avg(1)", "min(1)", "max(1)", "count(distinct 1)"}},
		{name: "two-keys-decimals", input: "bigint varchar decimal(10,2)", keys: []int{1, 0}, calls: []string{"sum(2)",
			"avg(2)", "min(2)", "max(2)", "count(distinct 2)", "min(1)", "approx_count_distinct(1)"}},
		{name: "int-double-keys", input: "bigint double bigint", keys: []int{1, 0}, calls: []string{"count(*)",
			"min(2)", "count(distinct 2)"}, appendOnly: true},
		{name: "temporal-keys", input: "date timestamp(3) boolean", keys: []int{0, 2}, calls: []string{"count(*)",
			"min(1)", "max(1)"}},
		{name: "append-only", input: "bigint varchar bigint", keys: []int{0}, calls: []string{"min(1)", "max(1)",
			"min(2)", "max(2)", "sum(2)", "approx_count_distinct(1)", "approx_count_distinct(2)"}, appendOnly: true},
		{name: "global", input: "bigint double", calls: []string{"count(*)", "sum(0)", "avg(1)", "max(0)",
			"min(1)", "count(distinct 0)"}},
		{name: "window-emit-on-close", input: "bigint varchar bigint", keys: []int{0, 1}, calls: []string{"count(*)",
			"sum(2)", "max(2)", "approx_count_distinct(2)"}, appendOnly: true, close: &WindowClose{Key: 0, Offset: 10, Emit: true}},
		{name: "window-updates", input: "bigint varchar bigint", keys: []int{1, 0}, calls: []string{"count(*)",
			"min(2)", "avg(2)"}, close: &WindowClose{Key: 1, Offset: 10}},
		{name: "window-int-key", input: "bigint bigint", keys: []int{0}, calls: []string{"count(*)", "max(1)"},
			appendOnly: true, close: &WindowClose{Key: 0, Offset: 20, Emit: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.keys, tc.calls...)
			cfg.AppendOnly, cfg.Close = tc.appendOnly, tc.close
			for seed := range uint64(4) {
				checkRestore(t, cfg, checkpointSteps(tc, rand.New(rand.NewPCG(seed, 11))))
			}
		})
	}
}

// checkpointSteps returns 30 random steps of tc's input: chunks of random
// changes and, for a windowed aggregate, windows that advance with the
// steps, some rows late, and a watermark every other step.
func checkpointSteps(tc checkpointCase, r *rand.Rand) []exectest.Step {
	var steps []exectest.Step
	row := brute.RandomRow(r, tc.input, domains)
	k := 0
	if tc.close != nil {
		// The window column (the group key tc.close.Key names, a bigint)
		// holds window starts around 5·k.
		col, base := tc.keys[tc.close.Key], row
		row = func() string {
			f := strings.Fields(base())
			f[col] = fmt.Sprint(5*k + 5*(r.IntN(6)-4)) // some late: a watermark passed 5·k-5
			return strings.Join(f, " ")
		}
	}
	changes := &brute.Changes{Rand: r, Row: row, AppendOnly: tc.appendOnly}
	for ; k < 30; k++ {
		if tc.close != nil && k%2 == 1 {
			steps = append(steps, exectest.Step{Ctl: exectest.Watermark(int64(5 * k))})
			continue
		}
		steps = append(steps, exectest.Step{In: tc.input + "\n" + strings.Join(changes.Next(12), "\n")})
	}
	return steps
}

// checkRestore runs steps through an aggregate of cfg, snapshotting it
// after three of the first two thirds (so that the state holds the sum of
// incremental deltas; the last follows a watermark when there are some,
// so that the restored instances see rows before a watermark, some late),
// and checks with exectest.CheckRestore that instances restored from the
// last snapshot at parallelism 1, 2 and 3 (a global aggregate's at 1)
// continue the uninterrupted run.
func checkRestore(t *testing.T, cfg HashConfig, steps []exectest.Step) {
	t.Helper()
	cut := 2*len(steps)/3 - 1
	exectest.CheckRestore(t, exectest.Restore{
		New:       func() exec.Operator { return NewHashAgg(cfg) },
		Steps:     steps,
		Keys:      cfg.GroupKeys,
		Snapshots: []int{cut / 3, 2 * cut / 3, cut},
		Options:   exectest.CollectorOptions{KeyCols: len(cfg.GroupKeys), Global: len(cfg.GroupKeys) == 0},
	})
}
