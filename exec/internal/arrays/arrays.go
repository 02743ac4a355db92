// Package arrays holds small helpers over Arrow arrays that several
// operator families use.
package arrays

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/expr"
)

// Release releases every array of as.
func Release(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// TakeNullable takes a's rows at idx, where -1 gives NULL.
func TakeNullable(alloc memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	nulls := 0
	for _, x := range idx {
		if x < 0 {
			nulls++
		}
	}
	if nulls == 0 {
		return expr.Take(alloc, a, idx)
	}
	if nulls == len(idx) || a.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(alloc, a.DataType(), len(idx)), nil
	}
	safe := make([]int32, len(idx))
	for k, x := range idx {
		safe[k] = max(x, 0)
	}
	t, err := expr.Take(alloc, a, safe)
	if err != nil {
		return nil, err
	}
	defer t.Release()
	bm := memory.NewResizableBuffer(alloc)
	defer bm.Release()
	bm.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bits := bm.Bytes()
	clear(bits)
	nullN := 0
	for k, x := range idx {
		if x >= 0 && t.IsValid(k) {
			bitutil.SetBit(bits, k)
		} else {
			nullN++
		}
	}
	d := t.Data()
	bufs := append([]*memory.Buffer{bm}, d.Buffers()[1:]...)
	nd := array.NewData(d.DataType(), len(idx), bufs, d.Children(), nullN, 0) // Take builds at offset 0
	defer nd.Release()
	return array.MakeFromData(nd), nil
}

// Emit emits a chunk of the n rows of cols, of schema, with ops (nil for
// inserts only). It releases cols, which the chunk holds while it is
// emitted.
func Emit(ctx context.Context, out exec.Emitter, schema *arrow.Schema, cols []arrow.Array, n int, ops []exec.Op) error {
	rec := array.NewRecordBatch(schema, cols, int64(n))
	Release(cols)
	err := out.Emit(ctx, exec.Chunk{Batch: rec, Ops: ops})
	rec.Release()
	return err
}

// Builders returns a builder from alloc for each field of schema.
func Builders(alloc memory.Allocator, schema *arrow.Schema) []array.Builder {
	bs := make([]array.Builder, len(schema.Fields()))
	for i, f := range schema.Fields() {
		bs[i] = array.NewBuilder(alloc, f.Type)
	}
	return bs
}

// ReleaseBuilders releases every builder of bs.
func ReleaseBuilders(bs []array.Builder) {
	for _, b := range bs {
		b.Release()
	}
}
