package cluster

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// TestShuffleRecords round-trips data records (with and without ops) and
// watermark records, and refuses damaged ones without panicking.
func TestShuffleRecords(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer alloc.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(alloc, schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, []bool{true, false, true})
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "", "ccc"}, nil)
	batch := b.NewRecordBatch()
	b.Release()
	defer batch.Release()

	for _, ops := range [][]exec.Op{nil, {exec.Insert, exec.UpdateBefore, exec.UpdateAfter}} {
		enc, err := appendData(nil, 7, exec.Chunk{Batch: batch, Ops: ops})
		if err != nil {
			t.Fatal(err)
		}
		r, err := decodeRecord(enc, schema, alloc)
		if err != nil {
			t.Fatal(err)
		}
		if r.kind != kindData || r.producer != 7 || !array.RecordEqual(r.chunk.Batch, batch) || len(r.chunk.Ops) != len(ops) {
			t.Errorf("data record: kind %c producer %d ops %v", r.kind, r.producer, r.chunk.Ops)
		}
		for i := range ops {
			if r.chunk.Ops[i] != ops[i] {
				t.Errorf("op %d: %v, want %v", i, r.chunk.Ops[i], ops[i])
			}
		}
		r.chunk.Batch.Release()
		// Every truncation is an error, never a panic.
		for n := range enc {
			if r, err := decodeRecord(enc[:n], schema, alloc); err == nil {
				r.chunk.Batch.Release()
				t.Errorf("a data record cut at %d of %d decoded", n, len(enc))
			}
		}
	}
	wm := appendWatermark(nil, 3, 1_764_583_200_000, true)
	r, err := decodeRecord(wm, schema, alloc)
	if err != nil || r.kind != kindWatermark || r.producer != 3 || r.wm != 1_764_583_200_000 || !r.idle {
		t.Errorf("watermark record: %+v, %v", r, err)
	}
	if _, err := decodeRecord(append([]byte{9}, wm[1:]...), schema, alloc); err == nil {
		t.Error("a record of another version decoded")
	}
}
