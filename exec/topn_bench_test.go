package exec

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// topnBenchRows is the number of rows of a benchmark chunk, in the middle
// of the 1–8 K the runtime aims for.
const topnBenchRows = 4096

// topnBenchChunk builds a chunk of (partition, score, id) rows: partitions
// drawn from [0, parts), scores random. With retract, the second half of
// the chunk retracts the rows of its first half, so state stays level.
func topnBenchChunk(alloc memory.Allocator, r *rand.Rand, parts int, retract bool) Chunk {
	n := topnBenchRows
	cols := make([][]int64, 3)
	for j := range cols {
		cols[j] = make([]int64, n)
	}
	var ops []Op
	if retract {
		ops = make([]Op, n)
	}
	for i := range n {
		cols[0][i], cols[1][i], cols[2][i] = int64(r.IntN(parts)), r.Int64N(1_000_000), int64(i)
		if retract && i >= n/2 {
			for j := range cols {
				cols[j][i] = cols[j][i-n/2]
			}
			ops[i] = Delete
		}
	}
	fields := make([]arrow.Field, 3)
	arrs := make([]arrow.Array, 3)
	for j := range cols {
		fields[j] = types.Field("c", types.BigIntT, true)
		b := array.NewInt64Builder(alloc)
		b.AppendValues(cols[j], nil)
		arrs[j] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return Chunk{Batch: rec, Ops: ops}
}

// topnBench runs chunks through a Top-N and reports rows per second.
func topnBench(b *testing.B, cfg TopNConfig, parts int, retract bool) {
	alloc := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	chunks := make([]Chunk, 16)
	for i := range chunks {
		chunks[i] = topnBenchChunk(alloc, r, parts, retract)
	}
	defer func() {
		for _, c := range chunks {
			c.Batch.Release()
		}
	}()
	op, err := NewTopN(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := op.Open(ctx, NewTestEnv(alloc)); err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	discard := EmitterFunc(func(context.Context, Chunk) error { return nil })
	if retract {
		// Fill the state with 100 K rows that stay, so that the trees the
		// measured rows enter and leave are deep.
		for range 25 {
			c := topnBenchChunk(alloc, r, parts, false)
			err := op.Process(ctx, 0, c, discard)
			c.Batch.Release()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := op.Process(ctx, 0, chunks[i%len(chunks)], discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*topnBenchRows/b.Elapsed().Seconds(), "rows/s")
}

func topnBenchConfig(limit int64, rowNumber, appendOnly bool, desc bool) TopNConfig {
	names := []string{"p", "score", "id"}
	if rowNumber {
		names = append(names, "rn")
	}
	return TopNConfig{
		Input:     []types.T{types.BigIntT, types.BigIntT, types.BigIntT},
		Partition: []int{0}, Order: []ordtree.SortKey{{Col: 1, Desc: desc}},
		Limit: limit, RowNumber: rowNumber, AppendOnly: appendOnly, Names: names,
	}
}

func BenchmarkTopNAppendOnly(b *testing.B) {
	topnBench(b, topnBenchConfig(10, true, true, true), 1000, false)
}

func BenchmarkTopNDedup(b *testing.B) {
	topnBench(b, topnBenchConfig(1, false, true, false), 10000, false)
}

func BenchmarkTopNRetract(b *testing.B) {
	topnBench(b, topnBenchConfig(10, false, false, true), 100, true)
}

func BenchmarkTopNRetractRowNumber(b *testing.B) {
	topnBench(b, topnBenchConfig(10, true, false, true), 100, true)
}
