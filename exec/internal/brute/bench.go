package brute

import (
	"context"
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
// the output, and reports input rows per second.
func Measure(b *testing.B, op exec.Operator, chunks []exec.Chunk) {
	b.Helper()
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
