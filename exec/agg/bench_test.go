package agg

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/planner/plan"
)

// Shape of the resident-state benchmark (the target): batches of
// benchRows rows that each touch benchKeys distinct groups chosen at
// random among the resident ones. benchBatches distinct batches are
// prepared, and together they touch about a million keys, so that with a
// million groups a key's state is rarely still in cache when it is touched
// again. Values are drawn from [0, benchValues) and every group starts
// with each of them, so that the MAX multisets have the same size
// (benchValues entries, one cache line) with a thousand groups as with a
// million: the comparison is then about the number of groups, not the size
// or the youth of their state.
const (
	benchRows    = 4096
	benchKeys    = 1000
	benchBatches = 1024
	benchValues  = 4
)

// BenchmarkHashAggResident measures the cost of a batch against the number
// of resident groups: per DESIGN it must follow the keys a batch touches,
// not the state size. Aggregates: COUNT(*), SUM(BIGINT), MAX(BIGINT), with
// retractable state (MAX keeps a multiset) and, in the append-only variant,
// the simpler state the planner may ask for.
func BenchmarkHashAggResident(b *testing.B) {
	for _, appendOnly := range []bool{false, true} {
		for _, n := range []struct {
			name   string
			groups int
		}{{"1K", 1_000}, {"1M", 1_000_000}} {
			name := n.name
			if appendOnly {
				name += "/append-only"
			}
			b.Run(name, func(b *testing.B) { benchResident(b, n.groups, appendOnly) })
		}
	}
}

// benchResident runs the benchmark over groups resident groups.
func benchResident(b *testing.B, groups int, appendOnly bool) {
	alloc := memory.NewGoAllocator()
	cfg := HashConfig{
		Input:     []types.T{types.BigIntT, types.BigIntT},
		GroupKeys: []int{0},
		Aggs: []accum.Spec{
			{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
			{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
			{Func: plan.AggMax, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
		},
		Names:      []string{"k", "count", "sum", "max"},
		AppendOnly: appendOnly,
	}
	h := NewHashAgg(cfg)
	ctx := context.Background()
	brute.Open(b, h, alloc)
	var emitted int64
	out := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
		emitted += int64(c.NumRows())
		return nil
	})
	r := rand.New(rand.NewPCG(1, uint64(groups)))

	// Make every group resident, with every value once, so that the timed
	// batches find the state at its steady size whatever the number of
	// groups.
	keys := make([]int64, 0, benchRows)
	vals := make([]int64, 0, benchRows)
	for v := range int64(benchValues) {
		for k := range groups {
			keys = append(keys, int64(k))
			vals = append(vals, v)
			if len(keys) == benchRows || k == groups-1 {
				rec := benchRecord(alloc, keys, vals)
				if err := h.Process(ctx, 0, exec.Chunk{Batch: rec}, out); err != nil {
					b.Fatal(err)
				}
				rec.Release()
				keys, vals = keys[:0], vals[:0]
			}
		}
	}

	batches := make([]arrow.RecordBatch, benchBatches)
	for i := range batches {
		batches[i] = benchTouchBatch(alloc, r, groups)
		defer batches[i].Release()
	}
	emitted = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := h.Process(ctx, 0, exec.Chunk{Batch: batches[i%benchBatches]}, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/batch")
	b.ReportMetric(float64(h.env.Metrics.StateKeys.Load()), "groups")
	b.ReportMetric(float64(emitted)/float64(b.N), "rows-out/batch")
}

// benchTouchBatch returns benchRows inserts spread over benchKeys
// distinct random keys of [0, groups), in random order.
func benchTouchBatch(alloc memory.Allocator, r *rand.Rand, groups int) arrow.RecordBatch {
	chosen := make(map[int64]bool, benchKeys)
	distinct := make([]int64, 0, benchKeys)
	for len(distinct) < benchKeys {
		k := r.Int64N(int64(groups))
		if !chosen[k] {
			chosen[k] = true
			distinct = append(distinct, k)
		}
	}
	keys := make([]int64, benchRows)
	vals := make([]int64, benchRows)
	for i := range keys {
		keys[i] = distinct[i%benchKeys]
		vals[i] = r.Int64N(benchValues)
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return benchRecord(alloc, keys, vals)
}

// benchRecord returns a batch of (key, value) BIGINT rows.
func benchRecord(alloc memory.Allocator, keys, vals []int64) arrow.RecordBatch {
	return brute.Int64Chunk(alloc, [][]int64{keys, vals}, nil).Batch
}

// BenchmarkHashAggTwoKeys groups by two BIGINT columns (the shape of
// GROUP BY auction, window_start): batches of benchRows rows over about
// benchKeys × benchValues groups, among 100K × benchValues
// resident ones. "fixed" groups each batch by its keys' hashes first and
// looks each distinct key up once (groupFixed); "encoded", the baseline
// in the same run, encodes and looks up every row.
func BenchmarkHashAggTwoKeys(b *testing.B) {
	for _, fixed := range []bool{true, false} {
		name := "encoded"
		if fixed {
			name = "fixed"
		}
		b.Run(name, func(b *testing.B) {
			alloc := memory.NewGoAllocator()
			h := NewHashAgg(HashConfig{
				Input:     []types.T{types.BigIntT, types.BigIntT},
				GroupKeys: []int{0, 1},
				Aggs:      []accum.Spec{{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT}},
				Names:     []string{"k", "v", "count"},
			})
			ctx := context.Background()
			brute.Open(b, h, alloc)
			h.keys.fixedOK = fixed
			out := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
			r := rand.New(rand.NewPCG(1, 2))
			batches := make([]arrow.RecordBatch, 256)
			for i := range batches {
				batches[i] = benchTouchBatch(alloc, r, 100_000)
				defer batches[i].Release()
			}
			for _, rec := range batches { // make the groups resident
				if err := h.Process(ctx, 0, exec.Chunk{Batch: rec}, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := h.Process(ctx, 0, exec.Chunk{Batch: batches[i%len(batches)]}, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
