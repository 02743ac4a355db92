package brute

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
	"github.com/eddysql/eddy/exec/internal/arrays"
)

// Int64Chunk builds a chunk of BIGINT columns c0, c1, ... with ops (nil for
// inserts only), as benchmarks feed operators.
func Int64Chunk(alloc memory.Allocator, cols [][]int64, ops []exec.Op) exec.Chunk {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for j, c := range cols {
		fields[j] = types.Field("c"+strconv.Itoa(j), types.BigIntT, true)
		b := array.NewInt64Builder(alloc)
		b.AppendValues(c, nil)
		arrs[j] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(len(cols[0])))
	arrays.Release(arrs)
	return exec.Chunk{Batch: rec, Ops: ops}
}

// ScoredChunk builds a chunk of n (partition, score, sequence number)
// rows, partitions drawn from [0, parts) and scores from [0, 1,000,000).
// With retract, the second half of the chunk retracts the rows of its
// first half, so that the state it is fed to stays level.
func ScoredChunk(alloc memory.Allocator, r *rand.Rand, n, parts int, retract bool) exec.Chunk {
	cols := make([][]int64, 3)
	for j := range cols {
		cols[j] = make([]int64, n)
	}
	var ops []exec.Op
	if retract {
		ops = make([]exec.Op, n)
	}
	for i := range n {
		cols[0][i], cols[1][i], cols[2][i] = int64(r.IntN(parts)), r.Int64N(1_000_000), int64(i)
		if retract && i >= n/2 {
			for j := range cols {
				cols[j][i] = cols[j][i-n/2]
			}
			ops[i] = exec.Delete
		}
	}
	return Int64Chunk(alloc, cols, ops)
}

// Open opens op with a test Env on alloc, for a benchmark, and closes it
// when tb ends.
func Open(tb testing.TB, op exec.Operator, alloc memory.Allocator) {
	tb.Helper()
	if err := op.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { op.Close() })
}

// discard is an emitter that drops what it is given.
var discard = exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })

// Feed runs c through op, dropping the output, and releases c.
func Feed(tb testing.TB, op exec.Operator, c exec.Chunk) {
	tb.Helper()
	err := op.Process(context.Background(), 0, c, discard)
	c.Batch.Release()
	if err != nil {
		tb.Fatal(err)
	}
}

// Measure runs op over chunks, in turn, as the timed loop of b, dropping
// the output, and reports input rows per second. It releases the chunks.
func Measure(b *testing.B, op exec.Operator, chunks []exec.Chunk) {
	b.Helper()
	defer func() {
		for _, c := range chunks {
			c.Batch.Release()
		}
	}()
	ctx := context.Background()
	var rows int64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := chunks[i%len(chunks)]
		if err := op.Process(ctx, 0, c, discard); err != nil {
			b.Fatal(err)
		}
		rows += int64(c.NumRows())
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
