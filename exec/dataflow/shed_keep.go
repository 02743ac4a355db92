package dataflow

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
)

// A query whose scaled aggregates (SCALED_COUNT, SCALED_SUM) estimate
// what its load shedding dropped reads, with each row of a stream, the
// probability that the row was kept: its source stage appends it as a
// last column (StageSpec.Keep) right after shedding, 1 − p for the drop
// fraction p the chunk was shed with, and 1 when the job sheds nothing.
// Every row of a chunk is kept with the same probability, so the column
// is one value repeated.

// KeepField is the field of the keep probability column.
var KeepField = arrow.Field{Name: "_keep", Type: arrow.PrimitiveTypes.Float64}

// keeper appends the keep probability column to a source stage's chunks.
type keeper struct {
	alloc  memory.Allocator
	in     *arrow.Schema // the source's schema, and
	schema *arrow.Schema // it with the keep column
	b      *array.Float64Builder
}

func newKeeper(alloc memory.Allocator) *keeper {
	return &keeper{alloc: alloc, b: array.NewFloat64Builder(alloc)}
}

// keepProbability returns the probability that the rows of the chunk s
// last shed were kept (1 with no shedder).
func (s *shedder) keepProbability() float64 {
	if s == nil || s.p <= 0 {
		return 1
	}
	return 1 - s.p
}

// apply returns kept, the rows of the source chunk orig that s kept
// (orig itself when it kept them all), with the keep column appended. It
// releases kept unless it is orig, as the caller releases orig.
func (k *keeper) apply(kept, orig exec.Chunk, s *shedder) exec.Chunk {
	n := kept.NumRows()
	if n == 0 {
		return kept
	}
	q := s.keepProbability()
	k.b.Reserve(n)
	for range n {
		k.b.UnsafeAppend(q)
	}
	col := k.b.NewArray()
	defer col.Release()
	in := kept.Batch.Schema()
	if k.in != in {
		fields := append(in.Fields(), KeepField)
		k.in, k.schema = in, arrow.NewSchema(fields, nil)
	}
	cols := make([]arrow.Array, 0, kept.Batch.NumCols()+1)
	cols = append(append(cols, kept.Batch.Columns()...), col)
	out := exec.Chunk{Batch: array.NewRecordBatch(k.schema, cols, int64(n)), Ops: kept.Ops}
	if kept.Batch != orig.Batch {
		kept.Batch.Release()
	}
	return out
}

// close releases the builder.
func (k *keeper) close() {
	if k != nil {
		k.b.Release()
	}
}
