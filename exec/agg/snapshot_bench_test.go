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
	"github.com/eddysql/eddy/planner/plan"
)

// discardWriter is a StateWriter that keeps nothing.
type discardWriter struct{}

func (discardWriter) Put(int, []byte, []byte) error { return nil }
func (discardWriter) Delete(int, []byte) error      { return nil }

// BenchmarkHashAggCopyOnWrite measures what a pending snapshot costs a
// batch: COUNT(*), SUM(v) GROUP BY k over 1M resident groups, batches of
// 4,096 rows on as many random keys, with no snapshot pending ("none") and
// with every group pending ("pending": each touched group is copied
// before the batch changes it; every 32 batches, untimed, the snapshot is
// finished, every group marked dirty again and a new one begun). "steps"
// is the cost of writing pending entries, steps of 1,024, into a writer
// that keeps nothing: the operator's share of a step, per entry;
// "steps-two-keys" the same for GROUP BY k, v (v is always 1), whose keys
// are encoded bytes rather than integers.
func BenchmarkHashAggCopyOnWrite(b *testing.B) {
	const groups, perSnapshot = 1_000_000, 32
	for _, mode := range []string{"none", "pending", "steps", "steps-two-keys"} {
		b.Run(mode, func(b *testing.B) {
			alloc := memory.NewGoAllocator()
			cfg := HashConfig{
				Input:     []types.T{types.BigIntT, types.BigIntT},
				GroupKeys: []int{0},
				Aggs: []accum.Spec{
					{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
					{Func: plan.AggSum, Arg: 1, ArgType: types.BigIntT, Type: types.BigIntT},
				},
				Names: []string{"k", "count", "sum"},
			}
			if mode == "steps-two-keys" {
				cfg.GroupKeys, cfg.Names, mode = []int{0, 1}, []string{"k", "v", "count", "sum"}, "steps"
			}
			h := NewHashAgg(cfg)
			ctx := context.Background()
			if err := h.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			out := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
				c.Batch.Release()
				return nil
			})
			process := func(rec arrow.RecordBatch) {
				if err := h.Process(ctx, 0, exec.Chunk{Batch: rec}, out); err != nil {
					b.Fatal(err)
				}
			}
			keys, vals := make([]int64, 0, benchRows), make([]int64, 0, benchRows)
			for k := range int64(groups) {
				keys, vals = append(keys, k), append(vals, 1)
				if len(keys) == benchRows || k == groups-1 {
					rec := benchRecord(alloc, keys, vals)
					process(rec)
					rec.Release()
					keys, vals = keys[:0], vals[:0]
				}
			}
			r := rand.New(rand.NewPCG(3, 4))
			batches := make([]arrow.RecordBatch, 256)
			for i := range batches {
				keys, vals = keys[:0], vals[:0]
				for range benchRows {
					keys, vals = append(keys, r.Int64N(groups)), append(vals, 1)
				}
				batches[i] = benchRecord(alloc, keys, vals)
				defer batches[i].Release()
			}
			begin := func() {
				for h.pend.w != nil {
					if _, err := h.SnapshotStep(ctx, 1<<20); err != nil {
						b.Fatal(err)
					}
				}
				for s := range int32(h.arena.Len()) {
					h.delta.mark(s)
				}
				if _, err := h.BeginSnapshot(ctx, 1, discardWriter{}); err != nil {
					b.Fatal(err)
				}
			}
			switch mode {
			case "pending":
				begin()
				b.ResetTimer()
				for i := range b.N {
					if i > 0 && i%perSnapshot == 0 {
						b.StopTimer()
						begin()
						b.StartTimer()
					}
					process(batches[i%len(batches)])
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/batch")
			case "none":
				b.ResetTimer()
				for i := range b.N {
					process(batches[i%len(batches)])
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/batch")
			case "steps":
				const budget = 1024
				begin()
				b.ResetTimer()
				for i := range b.N {
					if i > 0 && i%(groups/budget) == 0 {
						b.StopTimer()
						begin()
						b.StartTimer()
					}
					if _, err := h.SnapshotStep(ctx, budget); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/budget, "ns/entry")
			}
		})
	}
}
