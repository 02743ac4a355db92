package mview

import (
	"bytes"
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
	var dels, ins [][]types.Datum
	var a, b []byte
	same := func(x, y []types.Datum) bool {
		a = rowset.EncodeRow(a[:0], m.types, 1, x)
		b = rowset.EncodeRow(b[:0], m.types, 1, y)
		return bytes.Equal(a, b)
	}
	m.mu.Lock()
	m.rows.Each(func(key string, n int64, vals []types.Datum) {
		w, wvals, ok := want.Lookup(key)
		switch {
		case !ok || !same(vals, wvals):
			w = 0
		case w >= n:
			return
		}
		for range n - w {
			dels = append(dels, vals)
		}
	})
	want.Each(func(key string, w int64, vals []types.Datum) {
		n, cvals, ok := m.rows.Lookup(key)
		if !ok || !same(vals, cvals) {
			n = 0
		}
		for range w - n {
			ins = append(ins, vals)
		}
	})
	m.mu.Unlock()
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
