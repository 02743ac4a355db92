package agg

import (
	"context"
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
	exectest.Open(t, h, exec.NewTestEnv(exectest.Alloc(t)))
	return h
}
