package basic

import (
	"context"
	"slices"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// Sort orders a bounded input: it integrates the input's changes and, at
// end of input, emits the resulting rows as inserts in key order (NULLs
// first ascending, last descending, as MySQL). Pull queries use it; it is
// never part of a continuous query.
type Sort struct {
	Names []string
	Types []types.T
	Keys  []ordtree.SortKey

	rows *rowset.Set
	env  *exec.Env
}

var _ exec.Operator = (*Sort)(nil)

// Open implements Operator.
func (s *Sort) Open(ctx context.Context, env *exec.Env) error {
	s.rows = rowset.New(s.Types, nil)
	s.env = env
	return nil
}

// Process implements Operator.
func (s *Sort) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	return s.rows.Apply(c)
}

// OnControl implements Operator.
func (s *Sort) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if m.Kind != exec.EndOfInput {
		return nil
	}
	rows := s.rows.Rows()
	slices.SortStableFunc(rows, func(a, b []types.Datum) int {
		for _, k := range s.Keys {
			c := types.Compare(a[k.Col], b[k.Col], s.Types[k.Col])
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return emitRows(ctx, s.env.Alloc, s.Names, s.Types, rows, out)
}

// Close implements Operator.
func (s *Sort) Close() error { return nil }

// Limit keeps Count rows after skipping Offset. Over an append-only input
// (such as Sort's output) it passes the first rows through in order; over a
// changelog it integrates the input and emits the rows at end of input.
type Limit struct {
	Names      []string
	Types      []types.T
	Count      int64
	Offset     int64
	AppendOnly bool

	seen int64
	rows *rowset.Set
	env  *exec.Env
}

var _ exec.Operator = (*Limit)(nil)

// Open implements Operator.
func (l *Limit) Open(ctx context.Context, env *exec.Env) error {
	l.env = env
	if !l.AppendOnly {
		l.rows = rowset.New(l.Types, nil)
	}
	return nil
}

// Process implements Operator.
func (l *Limit) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if !l.AppendOnly {
		return l.rows.Apply(c)
	}
	n := int64(c.NumRows())
	lo, hi := max(l.Offset-l.seen, 0), min(l.Offset+l.Count-l.seen, n)
	l.seen += n
	if lo >= hi {
		return nil
	}
	if lo == 0 && hi == n {
		return out.Emit(ctx, c)
	}
	sel := make([]int32, 0, hi-lo)
	for r := lo; r < hi; r++ {
		sel = append(sel, int32(r))
	}
	part, err := exec.TakeRows(l.env.Alloc, c, sel)
	if err != nil {
		return err
	}
	defer part.Batch.Release()
	return out.Emit(ctx, part)
}

// OnControl implements Operator.
func (l *Limit) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if l.AppendOnly || m.Kind != exec.EndOfInput {
		return nil
	}
	rows := l.rows.Rows()
	lo, hi := min(l.Offset, int64(len(rows))), min(l.Offset+l.Count, int64(len(rows)))
	return emitRows(ctx, l.env.Alloc, l.Names, l.Types, rows[lo:hi], out)
}

// Close implements Operator.
func (l *Limit) Close() error { return nil }
