package basic

import (
	"context"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// ChangeBatch is a batch of a push query's output rows: each row starts with
// its op (+I, -D, -U, +U) followed by the query's columns.
type ChangeBatch [][]types.Datum

// PushSink is the operator that ends a push query's dataflow: it converts
// each chunk into rows with their op and hands them to Out. It stops the
// query after Limit changes (0: no limit), and reports the flush marker
// EndAt (0: none) as the end of the query.
type PushSink struct {
	Types []types.T
	Limit int64
	EndAt uint64
	// Out receives rows; it returns false when the consumer is gone.
	Out func(ctx context.Context, rows ChangeBatch) bool
	// End is called once when the query ends for a reason the sink sees
	// (limit reached, end of input, the EndAt marker).
	End func()

	sent  int64
	ended bool
}

var _ exec.Operator = (*PushSink)(nil)

// Open implements Operator.
func (s *PushSink) Open(ctx context.Context, env *exec.Env) error { return nil }

// Process implements Operator.
func (s *PushSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if s.ended {
		return nil
	}
	n := c.NumRows()
	if s.Limit > 0 && s.sent+int64(n) > s.Limit {
		n = int(s.Limit - s.sent)
	}
	rows := make(ChangeBatch, n)
	for i := 0; i < n; i++ {
		row := make([]types.Datum, len(s.Types)+1)
		row[0] = types.StringDatum(c.Op(i).String())
		for j, t := range s.Types {
			row[j+1] = types.DatumAt(c.Batch.Column(j), i, t)
		}
		rows[i] = row
	}
	s.sent += int64(n)
	if n > 0 && !s.Out(ctx, rows) {
		s.finish()
		return nil
	}
	if s.Limit > 0 && s.sent >= s.Limit {
		s.finish()
	}
	return nil
}

// OnControl implements Operator.
func (s *PushSink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	switch {
	case m.Kind == exec.EndOfInput:
		s.finish()
	case m.Kind == exec.Flush && s.EndAt > 0 && m.FlushID >= s.EndAt:
		s.finish()
	}
	return nil
}

func (s *PushSink) finish() {
	if !s.ended {
		s.ended = true
		if s.End != nil {
			s.End()
		}
	}
}

// Close implements Operator.
func (s *PushSink) Close() error {
	s.finish()
	return nil
}
