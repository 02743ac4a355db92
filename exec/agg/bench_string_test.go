package agg

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/brute"
	"github.com/eddysql/eddy/planner/plan"
)

// BenchmarkHashAggStringKey measures GROUP BY a VARCHAR key (COUNT(*),
// SUM(v), append-only) over 1M resident groups ("user-" and a number):
// batches of benchRows rows, each row a key drawn uniformly from all of
// them, so that nearly every lookup misses the caches. Rows a second of
// the aggregate alone.
func BenchmarkHashAggStringKey(b *testing.B) {
	const groups = 1_000_000
	alloc := memory.NewGoAllocator()
	cfg := HashConfig{
		Input:     []types.T{types.VarcharT, types.BigIntT},
		GroupKeys: []int{0},
		Aggs: []accum.Spec{
			{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
			{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
		},
		Names:      []string{"k", "count", "sum"},
		AppendOnly: true,
	}
	h := NewHashAgg(cfg)
	ctx := context.Background()
	brute.Open(b, h, alloc)
	out := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error { return nil })
	schema := arrow.NewSchema([]arrow.Field{types.Field("k", types.VarcharT, true), types.Field("v", types.BigIntT, true)}, nil)
	batch := func(keys []int) arrow.RecordBatch {
		bld := array.NewRecordBuilder(alloc, schema)
		defer bld.Release()
		kb, vb := bld.Field(0).(*array.StringBuilder), bld.Field(1).(*array.Int64Builder)
		for _, k := range keys {
			kb.Append("user-" + strconv.Itoa(k))
			vb.Append(1)
		}
		return bld.NewRecordBatch()
	}
	keys := make([]int, 0, benchRows)
	for k := range groups {
		if keys = append(keys, k); len(keys) == benchRows || k == groups-1 {
			rec := batch(keys)
			if err := h.Process(ctx, 0, exec.Chunk{Batch: rec}, out); err != nil {
				b.Fatal(err)
			}
			rec.Release()
			keys = keys[:0]
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	batches := make([]arrow.RecordBatch, 64)
	for i := range batches {
		keys = keys[:0]
		for range benchRows {
			keys = append(keys, r.IntN(groups))
		}
		batches[i] = batch(keys)
		defer batches[i].Release()
	}
	b.ResetTimer()
	for i := range b.N {
		if err := h.Process(ctx, 0, exec.Chunk{Batch: batches[i%len(batches)]}, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
