package rowset_test

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// countIn returns the rows of batches and those whose column col (a
// BIGINT) lies in [lo, hi], and releases the batches.
func countIn(batches []arrow.RecordBatch, col int, lo, hi int64) (rows, in int) {
	for _, b := range batches {
		vals := b.Column(col).(*array.Int64)
		for i := range int(b.NumRows()) {
			rows++
			if v := vals.Value(i); vals.IsValid(i) && v >= lo && v <= hi {
				in++
			}
		}
		b.Release()
	}
	return rows, in
}

// TestBatchesSkipSegmentsOutsideRanges: over 50,000 rows whose auction
// ids ascend (seven segments), a range of ids reads only the segments
// that may hold them and every row in it; a range of prices, spread over
// every segment, skips none; ranges on two columns skip a segment outside
// either; a DOUBLE column with a NaN is not bounded.
func TestBatchesSkipSegmentsOutsideRanges(t *testing.T) {
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.VarcharT, types.TimestampT(3)}
	s := rowset.New(ts, nil)
	for _, c := range benchChunks(50_000, false) {
		if err := s.Apply(c); err != nil {
			t.Fatal(err)
		}
		c.Batch.Release()
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "auction", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	ords := []int{0, 2}
	all, _ := countIn(s.Batches(schema, ords), 0, 0, 0)
	if all != 50_000 {
		t.Fatalf("%d rows, want 50000", all)
	}
	// Ids 20,000 to 20,099: within the third segment (16,384 to 24,575).
	rows, in := countIn(s.Batches(schema, ords, rowset.Range{Col: 0, Lo: 20_000, Hi: 20_099}), 0, 20_000, 20_099)
	if in != 100 || rows != 8192 {
		t.Errorf("ids 20000-20099: read %d rows holding %d of them, want one segment (8192) holding 100", rows, in)
	}
	// Across a segment boundary: two segments.
	if rows, in := countIn(s.Batches(schema, ords, rowset.Range{Col: 0, Lo: 8_000, Hi: 8_500}), 0, 8_000, 8_500); in != 501 || rows != 2*8192 {
		t.Errorf("ids 8000-8500: read %d rows holding %d of them, want two segments holding 501", rows, in)
	}
	// Prices repeat in every segment: nothing skipped.
	if rows, in := countIn(s.Batches(schema, ords, rowset.Range{Col: 2, Lo: 10, Hi: 20}), 1, 10, 20); rows != 50_000 || in == 0 {
		t.Errorf("prices 10-20: read %d rows holding %d of them, want all 50000", rows, in)
	}
	// Outside every value: nothing read.
	if rows, _ := countIn(s.Batches(schema, ords, rowset.Range{Col: 0, Lo: 60_000, Hi: math.MaxInt64}), 0, 0, 0); rows != 0 {
		t.Errorf("ids from 60000: read %d rows, want none", rows)
	}
	// Two ranges: the segment must be within both.
	if rows, _ := countIn(s.Batches(schema, ords, rowset.Range{Col: 0, Lo: 0, Hi: 100}, rowset.Range{Col: 2, Lo: 5000, Hi: 6000}), 0, 0, 0); rows != 0 {
		t.Errorf("ids to 100 and prices 5000-6000 (none): read %d rows, want none", rows)
	}

	f := rowset.New([]types.T{types.DoubleT}, nil)
	c := exec.Chunk{Batch: types.BuildRecord(memory.DefaultAllocator, []string{"x"}, []types.T{types.DoubleT},
		[][]types.Datum{{types.FloatDatum(1)}, {types.FloatDatum(math.NaN())}, {types.FloatDatum(3)}})}
	if err := f.Apply(c); err != nil {
		t.Fatal(err)
	}
	c.Batch.Release()
	fs := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	got := f.Batches(fs, []int{0}, rowset.Range{Col: 0, LoF: 10, HiF: 20})
	if len(got) != 1 {
		t.Errorf("a DOUBLE column with a NaN was bounded: %d batches", len(got))
	}
	for _, b := range got {
		b.Release()
	}
}
