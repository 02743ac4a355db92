package dedup

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestDedupRandomAgainstReference feeds random batches with 5% repeated
// keys, some within the window of their first row and some further, in
// processing time and in event time (rows out of order within the
// watermark's delay, watermarks freeing buckets), and checks every batch's
// kept rows against the exact reference: no duplicate kept, no row wrongly
// dropped. The Bloom filters must spare the exact set the rows of new
// keys: exact lookups are at most (repeat rate + FPR) × rows, plus slack.
func TestDedupRandomAgainstReference(t *testing.T) {
	for _, eventTime := range []bool{false, true} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("event=%v/seed=%d", eventTime, seed), func(t *testing.T) {
				alloc := exectest.Alloc(t)
				const window = 1000
				cfg := testConfig(window, eventTime)
				g := &generator{r: rand.New(rand.NewPCG(seed, 7)), window: window, eventTime: eventTime, dupRate: 0.05,
					now: 1_700_000_000_000, lateness: 300}
				clock := g.now
				in := newInstance(t, alloc, cfg, &clock, 0, 1)
				ref := &reference{window: window, seen: map[string][]int64{}}
				rows := 0
				for range 300 {
					clock = g.now
					batch := g.batch(1+g.r.IntN(200), g.r.Int64N(60))
					rows += len(batch)
					var want []row
					for _, r := range batch {
						if ref.keep(r) {
							want = append(want, r)
						}
					}
					got := in.feed(t, batch)
					if !slices.Equal(sortedStrings(got), sortedStrings(want)) || len(got) != len(want) {
						t.Fatalf("kept %d rows, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
					}
					if eventTime {
						g.wm = max(g.wm, g.now-g.lateness)
						in.watermark(t, g.wm)
					}
				}
				st := in.op.Stats()
				repeats := g.within + g.outside
				limit := int64(float64(repeats) + cfg.FPR*float64(rows) + 20)
				if st.ExactLookups > limit {
					t.Errorf("%d exact lookups for %d rows with %d repeats: over %d", st.ExactLookups, rows, repeats, limit)
				}
				if st.Duplicates != int64(rows-len(in.kept)) || st.RowsIn != int64(rows) {
					t.Errorf("stats %+v, want %d rows in, %d duplicates", st, rows, rows-len(in.kept))
				}
				if st.Duplicates == 0 || st.FalsePositives > st.ExactLookups-st.Duplicates {
					t.Errorf("stats %+v: no duplicates, or more false positives than lookups that found nothing", st)
				}
				m := in.env.Metrics
				if m.Counter("duplicates").Load() != st.Duplicates || m.Counter("exact_lookups").Load() != st.ExactLookups ||
					m.Counter("bloom_false_positives").Load() != st.FalsePositives {
					t.Errorf("metrics %v disagree with stats %+v", m.Counts(), st)
				}
				// State is bounded by the window: only the keys of the
				// last window and a bucket (plus the watermark's delay)
				// remain.
				if n := in.op.set.idx.Len(); n > len(g.past)/2 {
					t.Errorf("%d keys remembered of %d rows: buckets do not expire", n, len(g.past))
				}
			})
		}
	}
}

// TestDedupBucketsExpire checks that a bucket is dropped, from the filters
// and the exact set, once its times are a window behind the watermark (or
// the clock), and not before; and that a key seen again afterwards is new.
func TestDedupBucketsExpire(t *testing.T) {
	alloc := exectest.Alloc(t)
	t.Run("event-time", func(t *testing.T) {
		clock := int64(0)
		in := newInstance(t, alloc, testConfig(800, true), &clock, 0, 1) // buckets of 100ms
		in.feed(t, []row{{id: 1, name: "a", ts: 1000}, {id: 2, name: "b", ts: 1050}, {id: 3, name: "c", ts: 1150}})
		if n := len(in.op.bkt.live); n != 2 || in.op.set.idx.Len() != 3 {
			t.Fatalf("%d buckets, %d keys; want 2, 3", n, in.op.set.idx.Len())
		}
		if got := in.feed(t, []row{{id: 1, name: "a", ts: 1799}}); len(got) != 0 {
			t.Fatalf("a repeat 799ms after its key's row, window 800ms, was kept")
		}
		// The bucket [1000, 1100) can match no row at or after 1100 + 799.
		in.watermark(t, 1898)
		if in.op.set.idx.Len() != 3 {
			t.Fatalf("watermark 1898 dropped keys: %d left", in.op.set.idx.Len())
		}
		in.watermark(t, 1899)
		if n := len(in.op.bkt.live); n != 1 || in.op.set.idx.Len() != 1 {
			t.Fatalf("after watermark 1899: %d buckets, %d keys; want 1, 1", n, in.op.set.idx.Len())
		}
		if got := in.feed(t, []row{{id: 1, name: "a", ts: 1950}, {id: 3, name: "c", ts: 1949}}); len(got) != 1 || got[0].id != 1 {
			t.Fatalf("kept %v, want the row of key 1 only", got)
		}
		in.watermark(t, exec.MaxWatermark)
		if in.op.set.idx.Len() != 0 || len(in.op.bkt.live) != 0 || in.env.Metrics.StateKeys.Load() != 0 {
			t.Fatalf("the end of input left %d keys in %d buckets", in.op.set.idx.Len(), len(in.op.bkt.live))
		}
	})
	t.Run("processing-time", func(t *testing.T) {
		clock := int64(10_000)
		in := newInstance(t, alloc, testConfig(800, false), &clock, 0, 1)
		in.feed(t, []row{{id: 1, name: "a"}, {id: 2, name: "b"}})
		clock += 799
		if got := in.feed(t, []row{{id: 1, name: "a"}, {id: 3, name: "c"}}); len(got) != 1 || got[0].id != 3 {
			t.Fatalf("kept %v 799ms later, want only key 3", got)
		}
		clock += 1
		// Key 1 and 2's bucket [10000, 10100) is not a window old yet.
		if got := in.feed(t, []row{{id: 2, name: "b"}}); len(got) != 1 {
			t.Fatalf("a repeat exactly a window later was dropped")
		}
		clock += 100
		in.feed(t, nil)
		in.feed(t, []row{{id: 9, name: "z"}})
		if in.op.set.idx.Len() != 3 { // keys 3, 2 (again) and 9
			t.Fatalf("%d keys remembered, want 3", in.op.set.idx.Len())
		}
	})
}

// TestDedupRows covers the rows that are not ordinary: NULL keys equal
// each other, a row without event time is kept and not remembered, and a
// retraction is refused.
func TestDedupRows(t *testing.T) {
	alloc := exectest.Alloc(t)
	clock := int64(0)
	in := newInstance(t, alloc, testConfig(1000, true), &clock, 0, 1)
	got := in.feed(t, []row{{id: 1, null: true, ts: 10}, {id: 1, null: true, ts: 20}, {id: 1, name: "", ts: 30},
		{id: 2, noTime: true}, {id: 2, noTime: true}, {id: 2, ts: 40}})
	want := []row{{id: 1, null: true, ts: 10}, {id: 1, name: "", ts: 30}, {id: 2, noTime: true}, {id: 2, noTime: true}, {id: 2, ts: 40}}
	if !slices.Equal(sortedStrings(got), sortedStrings(want)) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	c := exectest.Chunk(t, alloc, "bigint varchar timestamp(3)\n-D 1 a 2024-01-01T00:00:00")
	defer c.Batch.Release()
	if err := in.op.Process(context.Background(), 0, c, exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })); !errors.Is(err, ErrRetraction) {
		t.Fatalf("a retraction gave %v, want ErrRetraction", err)
	}
}

// TestDedupRefusesBadConfig checks New's validation.
func TestDedupRefusesBadConfig(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.Keys = nil },
		func(c *Config) { c.WindowMs = 0 },
		func(c *Config) { c.FPR = 1 },
		func(c *Config) { c.TimeCol = 0 },
		func(c *Config) { c.Keys = []int{5} },
	} {
		cfg := testConfig(10, true)
		mod(&cfg)
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
