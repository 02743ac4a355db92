package setop

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// BenchmarkProcess feeds batches of 1024 (BIGINT, VARCHAR) rows over 100k
// distinct rows, alternately to the left and the right input, a quarter
// of them retractions of rows inserted before, into an EXCEPT ALL, over
// and over: after the first round the rows held no longer change, so it
// measures the steady state. It reports the time and allocations per
// batch.
func BenchmarkProcess(b *testing.B) {
	const batch, distinct = 1024, 100_000
	alloc := memory.NewGoAllocator()
	op := newOp(b, ExceptAll)
	exectest.Open(b, op, exec.NewTestEnv(alloc))
	var chunks []exec.Chunk
	for k := range 64 {
		rows := make([][]types.Datum, batch)
		ops := make([]exec.Op, batch)
		for i := range rows {
			v := int64((k*batch + i*7919) % distinct)
			rows[i] = []types.Datum{types.IntDatum(v), types.StringDatum(fmt.Sprintf("name-%d", v%1000))}
			if k >= 2 && i%4 == 0 {
				ops[i] = exec.Delete // a row inserted by the batch two before
				w := int64(((k-2)*batch + i*7919) % distinct)
				rows[i] = []types.Datum{types.IntDatum(w), types.StringDatum(fmt.Sprintf("name-%d", w%1000))}
			}
		}
		chunks = append(chunks, exec.Chunk{Batch: types.BuildRecord(alloc, []string{"x", "s"}, op.cfg.Types, rows), Ops: ops})
	}
	sink := exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error { return nil })
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := i % len(chunks)
		if err := op.Process(b.Context(), k%2, chunks[k], sink); err != nil {
			b.Fatal(err)
		}
	}
}
