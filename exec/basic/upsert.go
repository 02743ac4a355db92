package basic

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// Upsert turns a table's upserts into its changelog (as Flink's
// ChangelogNormalize): each input row is the latest version of the row with
// its primary key. A key seen for the first time emits +I; a key seen before
// emits -U with the previous row and +U with the new one (nothing when the
// row did not change); an input retraction deletes the key (-D). Its state,
// the latest row of every key, is checkpointed (see upsert_state.go).
type Upsert struct {
	Names []string
	Types []types.T
	Keys  []int

	env    *exec.Env
	rows   map[string]upsertRow // by the encoding of the key (rowkey)
	live   int                  // the rows of rows that are not gone
	keyBuf []byte
	delta  upsertDelta
}

// upsertRow is the latest row of a key.
type upsertRow struct {
	vals []types.Datum
	// dirty is set when the key is listed in the delta: its row changed
	// since the last snapshot.
	dirty bool
	// gone is set when the key was deleted since the last snapshot: the
	// row is kept, with its last values (its key group is computed from
	// them), until the snapshot writes its deletion.
	gone bool
}

var (
	_ exec.Operator = (*Upsert)(nil)
	_ exec.Stateful = (*Upsert)(nil)
)

// Open implements Operator.
func (u *Upsert) Open(ctx context.Context, env *exec.Env) error {
	u.env = env
	u.rows, u.live, u.delta = map[string]upsertRow{}, 0, upsertDelta{}
	return nil
}

// Process implements Operator.
func (u *Upsert) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	n := c.NumRows()
	cols := c.Batch.Columns()
	keyCols := make([]arrow.Array, len(u.Keys))
	for i, k := range u.Keys {
		keyCols[i] = cols[k]
	}
	var outRows [][]types.Datum
	var ops []exec.Op
	for i := 0; i < n; i++ {
		u.keyBuf = rowkey.Append(u.keyBuf[:0], keyCols, i)
		old, exists := u.rows[string(u.keyBuf)]
		live := exists && !old.gone
		if c.Op(i).IsRetraction() {
			if !live {
				return fmt.Errorf("exec: upsert: delete of a key the table does not hold")
			}
			outRows, ops = append(outRows, old.vals), append(ops, exec.Delete)
			u.live--
			if u.delta.tracking {
				u.rows[string(u.keyBuf)] = upsertRow{vals: old.vals, dirty: true, gone: true}
				u.changed(old.dirty)
			} else {
				delete(u.rows, string(u.keyBuf))
			}
			continue
		}
		row := make([]types.Datum, len(cols))
		for j, col := range cols {
			row[j] = types.DatumAt(col, i, u.Types[j])
		}
		switch {
		case !live:
			outRows, ops = append(outRows, row), append(ops, exec.Insert)
			u.live++
		case sameRow(old.vals, row, u.Types):
			continue
		default:
			outRows, ops = append(outRows, old.vals, row), append(ops, exec.UpdateBefore, exec.UpdateAfter)
		}
		u.rows[string(u.keyBuf)] = upsertRow{vals: row, dirty: old.dirty || u.delta.tracking}
		u.changed(old.dirty)
	}
	u.env.Metrics.StateKeys.Store(int64(u.live))
	if len(outRows) == 0 {
		return nil
	}
	rec := types.BuildRecord(u.env.Alloc, u.Names, u.Types, outRows)
	defer rec.Release()
	return out.Emit(ctx, exec.Chunk{Batch: rec, Ops: ops})
}

func sameRow(a, b []types.Datum, ts []types.T) bool {
	for i, t := range ts {
		if !types.Equal(a[i], b[i], t) {
			return false
		}
	}
	return true
}

// OnControl implements Operator.
func (u *Upsert) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error { return nil }

// Close implements Operator.
func (u *Upsert) Close() error {
	u.rows, u.live, u.delta = nil, 0, upsertDelta{}
	return nil
}
