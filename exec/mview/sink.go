package mview

import (
	"context"
	"github.com/eddysql/eddy/exec"
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

	metrics *exec.OperatorMetrics
	group   int // the key group the view's rows are snapshotted in
}

var _ exec.Operator = (*Sink)(nil)

// Open implements Operator.
func (s *Sink) Open(ctx context.Context, env *exec.Env) error {
	if env != nil {
		s.metrics = env.Metrics
		s.group = env.KeyGroups.Lo
	}
	return nil
}

// Process implements Operator: it integrates c and reports the view's rows
// as the operator's state.
func (s *Sink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
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
	return s.MV.Control(ctx, m)
}

// Close implements Operator.
func (s *Sink) Close() error { return nil }
