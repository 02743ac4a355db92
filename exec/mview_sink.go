package exec

import (
	"context"
)

// MViewSink is the operator that ends a materialized view's (or a pull
// query's) dataflow: it integrates the changes into an MView.
type MViewSink struct {
	MV *MView

	metrics *OperatorMetrics
}

var _ Operator = (*MViewSink)(nil)

// Open implements Operator.
func (s *MViewSink) Open(ctx context.Context, env *Env) error {
	if env != nil {
		s.metrics = env.Metrics
	}
	return nil
}

// Process implements Operator: it integrates c and reports the view's rows
// as the operator's state.
func (s *MViewSink) Process(ctx context.Context, in int, c Chunk, out Emitter) error {
	if err := s.MV.Apply(ctx, c); err != nil {
		return err
	}
	if s.metrics != nil {
		rows, bytes := s.MV.Size()
		s.metrics.StateKeys.Store(int64(rows))
		s.metrics.StateBytes.Store(bytes)
	}
	return nil
}

// OnControl implements Operator.
func (s *MViewSink) OnControl(ctx context.Context, m Control, out Emitter) error {
	return s.MV.Control(ctx, m)
}

// Close implements Operator.
func (s *MViewSink) Close() error { return nil }
