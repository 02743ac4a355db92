package mview

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// Reconciling a kept view with its query rebuilt from its inputs. A query
// that cannot stop at a checkpoint (one reading another view, whose
// changes have no position) changes parallelism by starting afresh from
// its inputs while the view keeps its rows: its Sink, with Reconcile set,
// integrates the rebuilt query's output on its own until the first flush
// marker or end of input, by which time the query has caught up with its
// inputs; then it changes the view into what it integrated with one chunk
// of changes — the difference, which subscribers receive like any other
// change — and from then on applies the query's changes as usual. Readers
// see the view as it was, then the difference, then what follows: their
// integral is always one the view held.

// reconcile makes the view hold exactly the rows of want, applying (and
// sending its subscribers) the difference: retractions of the rows it
// holds more often than want, or with other values under their key, then
// inserts of those want holds more often. It returns the number of
// changed rows.
func (m *View) reconcile(ctx context.Context, alloc memory.Allocator, want *rowset.Set) (int, error) {
	m.mu.Lock()
	have := m.rows.Rows()
	m.mu.Unlock()
	// diff counts each distinct row: how many more times want holds it.
	diff := map[string]int{}
	vals := map[string][]types.Datum{}
	var buf []byte
	count := func(rows [][]types.Datum, w int) {
		for _, r := range rows {
			buf = rowset.EncodeRow(buf[:0], m.types, 1, r)
			diff[string(buf)] += w
			vals[string(buf)] = r
		}
	}
	count(have, -1)
	count(want.Rows(), 1)
	var dels, ins [][]types.Datum
	for k, n := range diff {
		for ; n < 0; n++ {
			dels = append(dels, vals[k])
		}
		for ; n > 0; n-- {
			ins = append(ins, vals[k])
		}
	}
	if len(dels)+len(ins) == 0 {
		return 0, nil
	}
	rows := append(dels, ins...)
	ops := make([]exec.Op, len(rows))
	for i := len(dels); i < len(rows); i++ {
		ops[i] = exec.Insert
	}
	for i := range dels {
		ops[i] = exec.Delete
	}
	rec := types.BuildRecord(alloc, m.names, m.types, rows)
	defer rec.Release()
	return len(rows), m.Apply(ctx, exec.Chunk{Batch: rec, Ops: ops})
}
