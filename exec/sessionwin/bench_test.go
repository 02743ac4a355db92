package sessionwin

import (
	"context"
	"math/rand/v2"
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

// BenchmarkSession runs chunks of 4,096 rows (key, time, value) over 1,000
// keys through a SESSION window with COUNT(*), SUM and MAX of the value,
// in running mode, with times that advance and sometimes bridge sessions,
// and a watermark after every chunk that closes the older sessions. It
// reports input rows per second.
func BenchmarkSession(b *testing.B) {
	alloc := memory.NewGoAllocator()
	const rows, keys, gap = 4096, 1000, 50
	in := []types.T{types.BigIntT, types.TimestampT(3), types.BigIntT}
	cfg := Config{Input: in, GroupKeys: []int{0}, TimeCol: 1, Gap: gap,
		Aggs: []accum.Spec{
			{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
			{Func: plan.AggSum, Arg: 2, ArgType: types.BigIntT, Type: types.BigIntT},
			{Func: plan.AggMax, Arg: 2, ArgType: types.BigIntT, Type: types.BigIntT},
		},
		Names: []string{"k", "window_start", "window_end", "n", "s", "m"}}
	w, err := NewAgg(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	brute.Open(b, w, alloc)
	discard := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
	r := rand.New(rand.NewPCG(1, 2))
	schema := arrow.NewSchema([]arrow.Field{types.Field("k", in[0], true), types.Field("t", in[1], true), types.Field("v", in[2], true)}, nil)
	chunk := func(base int64) arrow.RecordBatch {
		kb, tb, vb := array.NewInt64Builder(alloc), array.NewTimestampBuilder(alloc, &arrow.TimestampType{Unit: arrow.Millisecond}), array.NewInt64Builder(alloc)
		defer kb.Release()
		defer tb.Release()
		defer vb.Release()
		for range rows {
			kb.Append(r.Int64N(keys))
			tb.Append(arrow.Timestamp(base + r.Int64N(4*gap)))
			vb.Append(r.Int64N(1000))
		}
		cols := []arrow.Array{kb.NewArray(), tb.NewArray(), vb.NewArray()}
		defer func() {
			for _, c := range cols {
				c.Release()
			}
		}()
		return array.NewRecordBatch(schema, cols, rows)
	}
	const ring = 64
	chunks := make([]arrow.RecordBatch, ring)
	for i := range chunks {
		chunks[i] = chunk(int64(i) * gap)
	}
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Chunk i of the ring is shifted by whole laps, so that times keep
		// advancing and the watermark keeps closing sessions.
		k := i % ring
		if k == 0 && i > 0 {
			b.StopTimer()
			for j := range chunks {
				chunks[j].Release()
				chunks[j] = chunk(int64(i+j) * gap)
			}
			b.StartTimer()
		}
		if err := w.Process(ctx, 0, exec.Chunk{Batch: chunks[k]}, discard); err != nil {
			b.Fatal(err)
		}
		wm := exec.Control{Kind: exec.Watermark, Watermark: int64(i-4) * gap}
		if err := w.OnControl(ctx, wm, discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*rows/b.Elapsed().Seconds(), "rows/s")
}
