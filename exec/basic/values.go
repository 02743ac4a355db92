package basic

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// emitRows emits rows as inserts, in batches of BatchRows.
func emitRows(ctx context.Context, alloc memory.Allocator, names []string, ts []types.T, rows [][]types.Datum, out exec.Emitter) error {
	for len(rows) > 0 {
		n := min(len(rows), exec.BatchRows)
		rec := types.BuildRecord(alloc, names, ts, rows[:n])
		err := out.Emit(ctx, exec.Chunk{Batch: rec})
		rec.Release()
		if err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// ValuesSource is a bounded source of constant rows (VALUES, a SELECT
// without FROM, a snapshot read from a view).
type ValuesSource struct {
	Names []string
	Types []types.T
	Rows  [][]types.Datum

	alloc memory.Allocator
}

var _ exec.Source = (*ValuesSource)(nil)

// Open implements Source.
func (v *ValuesSource) Open(ctx context.Context, env *exec.Env) error {
	v.alloc = env.Alloc
	return nil
}

// Next implements Source.
func (v *ValuesSource) Next(ctx context.Context) (exec.Chunk, error) {
	if len(v.Rows) == 0 {
		return exec.Chunk{}, io.EOF
	}
	n := min(len(v.Rows), exec.BatchRows)
	rec := types.BuildRecord(v.alloc, v.Names, v.Types, v.Rows[:n])
	v.Rows = v.Rows[n:]
	return exec.Chunk{Batch: rec}, nil
}

// Wait implements Source.
func (v *ValuesSource) Wait(ctx context.Context) error { return nil }

// Close implements Source.
func (v *ValuesSource) Close() error { return nil }
