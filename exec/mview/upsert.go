package mview

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// withReplaced rewrites a chunk applied to an upsert view for its
// subscribers: each insert that replaced a row becomes an update, -U of
// the row it replaced and +U of itself. It runs only when a key came
// back after its row was forgotten, so it builds the chunk row by row.
func (m *View) withReplaced(c exec.Chunk, rep []rowset.Replaced) exec.Chunk {
	fields := make([]arrow.Field, len(m.types))
	for i, t := range m.types {
		fields[i] = types.Field(m.names[i], t, true)
	}
	schema := arrow.NewSchema(fields, nil)
	bs := arrays.Builders(memory.DefaultAllocator, schema)
	defer arrays.ReleaseBuilders(bs)
	add := func(row []types.Datum) {
		for j, b := range bs {
			types.AppendDatum(b, row[j], m.types[j])
		}
	}
	rows := types.Rows(c.Batch, m.types)
	ops := make([]exec.Op, 0, len(rows)+len(rep))
	k := 0
	for i, row := range rows {
		op := c.Op(i)
		if k < len(rep) && rep[k].Row == i {
			add(rep[k].Old)
			ops = append(ops, exec.UpdateBefore)
			op = exec.UpdateAfter
			k++
		}
		add(row)
		ops = append(ops, op)
	}
	cols := make([]arrow.Array, len(bs))
	for j, b := range bs {
		cols[j] = b.NewArray()
	}
	batch := array.NewRecordBatch(schema, cols, int64(len(ops)))
	arrays.Release(cols)
	return exec.Chunk{Batch: batch, Ops: ops}
}
