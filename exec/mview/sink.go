package mview

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// Sink is the operator that ends a materialized view's (or a pull
// query's) dataflow: it integrates the changes into an MView.
type Sink struct {
	MV *View
	// Kept says MV already holds the rows of the checkpoint the query
	// restores: the view was kept while its query moved (a rescale stops
	// the query at a checkpoint and starts it again from there), and
	// Restore reads nothing.
	Kept bool
	// Reconcile says the query was rebuilt from its inputs while MV kept
	// its rows (reconcile.go): the sink integrates the query's output
	// apart until the first flush marker or end of input, then changes
	// the view into it with one chunk of differences, and from then on
	// applies changes as they come. Reconciled, if set, is called once
	// then, with the number of rows the difference changed.
	Reconcile  bool
	Reconciled func(changed int)

	metrics *exec.OperatorMetrics
	group   int // the key group the view's rows are snapshotted in
	alloc   memory.Allocator
	pending *rowset.Set // the rebuilt query's output, until reconciled
}

var _ exec.Operator = (*Sink)(nil)

// Open implements Operator.
func (s *Sink) Open(ctx context.Context, env *exec.Env) error {
	s.alloc = memory.DefaultAllocator
	if env != nil {
		s.metrics = env.Metrics
		s.group = env.KeyGroups.Lo
		if env.Alloc != nil {
			s.alloc = env.Alloc
		}
	}
	if s.Reconcile {
		s.pending = s.MV.newSet()
	}
	return nil
}

// Process implements Operator: it integrates c and reports the view's rows
// as the operator's state.
func (s *Sink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if s.pending != nil {
		return s.pending.Apply(c)
	}
	if err := s.MV.Apply(ctx, c); err != nil {
		return err
	}
	s.report()
	return nil
}

// report sets the operator's state metrics to the view's size.
func (s *Sink) report() {
	if s.metrics != nil {
		rows, bytes := s.MV.Size()
		s.metrics.StateKeys.Store(int64(rows))
		s.metrics.StateBytes.Store(bytes)
	}
}

// OnControl implements Operator.
func (s *Sink) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if s.pending != nil && (m.Kind == exec.Flush || m.Kind == exec.EndOfInput) {
		n, err := s.MV.reconcile(ctx, s.alloc, s.pending)
		if err != nil {
			return err
		}
		s.pending = nil
		s.report()
		if s.Reconciled != nil {
			s.Reconciled(n)
		}
	}
	return s.MV.Control(ctx, m)
}

// Close implements Operator.
func (s *Sink) Close() error { return nil }
