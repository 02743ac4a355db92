package datagen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Source generates one split of a datagen stream: the rows n = instance,
// instance + P, … of the global sequence. It implements exec.Source; the
// runtime calls it from one goroutine.
type Source struct {
	cfg    Config
	cols   []*column
	schema *arrow.Schema
	end    uint64 // the global sequence's length (unbounded: never ends)

	alloc   memory.Allocator
	metrics *exec.OperatorMetrics
	now     func() time.Time
	thr     connector.Throttle

	instance, parallelism int
	n, step               uint64 // the split's next row, and P
	first                 uint64 // the row the first Next started at
	opened, started       bool
	closed                bool
}

var (
	_ exec.Source     = (*Source)(nil)
	_ exec.Positioned = (*Source)(nil)
)

// The errors of a source used out of order.
var (
	errNotOpen     = errors.New("datagen connector: source is not open")
	errClosed      = errors.New("datagen connector: source is closed")
	errAlreadyOpen = errors.New("datagen connector: source is already open")
)

// New returns a source for cfg, a Config from FromOptions. Which split it
// generates is decided by Open.
func New(cfg Config) *Source {
	s := &Source{cfg: cfg, end: cfg.Len()}
	fields := make([]arrow.Field, len(cfg.Fields))
	for i, f := range cfg.Fields {
		fields[i] = types.Field(f.Column.Name, f.Column.Type, f.Column.Nullable)
		s.cols = append(s.cols, newColumn(f, i, cfg.Seed))
	}
	s.schema = arrow.NewSchema(fields, nil)
	if s.cfg.BatchSize == 0 {
		s.cfg.BatchSize = DefaultBatchSize
	}
	return s
}

// Schema returns the schema of the chunks: the declared columns.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// Bounded implements exec.BoundedSource.
func (s *Source) Bounded() bool { return s.end != unbounded }

// Finite implements exec.FiniteSource: with an end the rows are a
// function of their index, and a resumed source goes on from the index
// it reached.
func (s *Source) Finite() bool { return s.end != unbounded }

// Open positions the source at the start of split env.Instance of
// env.Parallelism. With a rate, the wall-clock schedule starts now.
func (s *Source) Open(_ context.Context, env *exec.Env) error {
	switch {
	case s.closed:
		return errClosed
	case s.opened:
		return errAlreadyOpen
	}
	p := max(env.Parallelism, 1)
	if env.Instance < 0 || env.Instance >= p {
		return fmt.Errorf("datagen connector: instance %d is not among the %d instances", env.Instance, p)
	}
	s.alloc = env.Alloc
	if s.alloc == nil {
		s.alloc = memory.DefaultAllocator
	}
	s.now, s.metrics = env.Now, env.Metrics
	s.instance, s.parallelism = env.Instance, p
	s.n, s.step = uint64(env.Instance), uint64(p)
	s.thr = connector.Throttle{Rate: s.cfg.Rate, Start: s.now()}
	s.opened = true
	return nil
}

// Next returns the split's next chunk of at most batch_size rows. After
// the split's last row it returns io.EOF; with a rate, it returns
// exec.ErrCaughtUp when the next row is not due yet. A sequence without
// an end that would leave its column's type fails the source.
func (s *Source) Next(ctx context.Context) (exec.Chunk, error) {
	switch {
	case s.closed:
		return exec.Chunk{}, errClosed
	case !s.opened:
		return exec.Chunk{}, errNotOpen
	}
	if err := ctx.Err(); err != nil {
		return exec.Chunk{}, err
	}
	if !s.started {
		s.started, s.first = true, s.n
	}
	defer s.reportInput()
	if s.n >= s.end {
		return exec.Chunk{}, io.EOF
	}
	last := s.end - 1
	if s.thr.Rate > 0 {
		if last = min(last, s.thr.LastDue(s.now())); s.n > last {
			return exec.Chunk{}, exec.ErrCaughtUp
		}
	}
	count := uint64(s.cfg.BatchSize)
	if avail := (last-s.n)/s.step + 1; avail < count {
		count = avail
	}
	final := s.n + (count-1)*s.step
	for _, c := range s.cols {
		if final >= c.limit {
			return exec.Chunk{}, fmt.Errorf("datagen connector: column %s: its sequence leaves %s after %d rows (give it an end, or a wider type)",
				c.f.Column.Name, c.f.Column.Type, c.limit)
		}
	}
	arrs := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		arrs[i] = c.build(s.alloc, s.n, s.step, int(count))
	}
	b := array.NewRecordBatch(s.schema, arrs, int64(count))
	for _, a := range arrs {
		a.Release()
	}
	if final >= s.end-s.step || final+s.step < final {
		s.n = s.end
	} else {
		s.n = final + s.step
	}
	return exec.Chunk{Batch: b}, nil
}

// reportInput records the split's progress in rows of the global
// sequence: passed since the first Next, and waiting — due by now with a
// rate, else every row to come of a bounded sequence.
func (s *Source) reportInput() {
	if s.metrics == nil || (s.end == unbounded && s.thr.Rate <= 0) {
		return
	}
	waiting := s.end
	if s.thr.Rate > 0 {
		waiting = min(waiting, s.thr.LastDue(s.now())+1)
	}
	n := min(s.n, s.end)
	s.metrics.ReportInput(clamp(n-s.first), clamp(waiting)-clamp(n))
}

// clamp converts a row number to int64.
func clamp(n uint64) int64 { return int64(min(n, math.MaxInt64)) }

// Wait blocks until the split's next row is due (with a rate) or ctx is
// done.
func (s *Source) Wait(ctx context.Context) error {
	switch {
	case s.closed:
		return errClosed
	case !s.opened:
		return errNotOpen
	}
	if s.n >= s.end || s.thr.Rate == 0 {
		return nil
	}
	return connector.SleepUntil(ctx, s.thr.Due(s.n))
}

// Close ends the source. Chunks already returned stay valid.
func (s *Source) Close() error {
	s.closed = true
	return nil
}
