package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestPeersAgree runs every query once on both engines over 20,000 bids,
// with an eddy binary built from this repository, and checks that the
// engines agree (Run fails when they do not) and that the results have
// the shapes the data set promises.
func TestPeersAgree(t *testing.T) {
	if !haveDuckDB {
		t.Skip(noCgoHelp)
	}
	if testing.Short() {
		t.Skip("builds eddy and runs both engines; skipped with -short")
	}
	const rows = 20_000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var log strings.Builder
	rep, err := Run(ctx, Config{Rows: rows, Runs: 1, Seed: 1, Queries: Queries, Log: &log})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.Print(&out); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	got := map[string][]string{}
	for _, r := range rep.Results {
		if len(r.Eddy) != 1 || len(r.DuckDB) != 1 {
			t.Fatalf("%s: %d eddy and %d DuckDB measurements, want 1 each", r.Query.Name, len(r.Eddy), len(r.DuckDB))
		}
		got[r.Query.Name] = r.Eddy[0].Check
	}
	// About 1,000 bids per second of event time: 20,000 bids span about
	// 20 seconds, two 10-second windows that hold every bid.
	if c := got["tumble"]; c[0] != "2" || c[1] != "20000" {
		t.Errorf("tumble: %v windows and bids, want 2 windows of 20000 bids in all", c[:2])
	}
	if c := got["topn"]; c[0] != "10" {
		t.Errorf("topn: %s rows, want 10", c[0])
	}
	// price > 100 keeps about two thirds of log-uniform prices below 10^6,
	// and about 1,000 of 1,100 auction ids are in the table.
	checkShare(t, "filter", got["filter"][0], rows, 0.62, 0.71)
	checkShare(t, "join", got["join"][0], rows, 0.88, 0.94)
}

// checkShare fails t unless count, a decimal row count, is between lo and
// hi of total.
func checkShare(t *testing.T, name, count string, total int, lo, hi float64) {
	t.Helper()
	var n int
	for _, c := range count {
		if c < '0' || c > '9' {
			t.Errorf("%s: row count %q is not a number", name, count)
			return
		}
		n = n*10 + int(c-'0')
	}
	if share := float64(n) / float64(total); share < lo || share > hi {
		t.Errorf("%s: %d of %d rows (%.3f), want between %.2f and %.2f", name, n, total, share, lo, hi)
	}
}
