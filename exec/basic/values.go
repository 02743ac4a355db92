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
// without FROM, a snapshot read from a view). It implements
// exec.Positioned: its position is the number of rows emitted, with the
// number of rows, the columns' names and types, and a hash of the rows,
// so that Seek refuses the position of other rows.
type ValuesSource struct {
	Names []string
	Types []types.T
	Rows  [][]types.Datum

	alloc   memory.Allocator
	all     [][]types.Datum // Rows before Next consumed any
	emitted int             // rows returned by Next: Rows holds the others
	hash    uint64          // of the columns and all the rows, once computed
	hashed  bool
	started bool // Next was called: Seek is too late
}

var (
	_ exec.Source     = (*ValuesSource)(nil)
	_ exec.Positioned = (*ValuesSource)(nil)
)

// Open implements Source.
func (v *ValuesSource) Open(ctx context.Context, env *exec.Env) error {
	v.alloc = env.Alloc
	return nil
}

// Next implements Source.
func (v *ValuesSource) Next(ctx context.Context) (exec.Chunk, error) {
	if v.all == nil {
		v.all = v.Rows
	}
	v.started = true
	if len(v.Rows) == 0 {
		return exec.Chunk{}, io.EOF
	}
	n := min(len(v.Rows), exec.BatchRows)
	rec := types.BuildRecord(v.alloc, v.Names, v.Types, v.Rows[:n])
	v.Rows = v.Rows[n:]
	v.emitted += n
	return exec.Chunk{Batch: rec}, nil
}

// Wait implements Source.
func (v *ValuesSource) Wait(ctx context.Context) error { return nil }

// Close implements Source.
func (v *ValuesSource) Close() error { return nil }
