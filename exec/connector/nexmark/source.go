package nexmark

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector"
)

// Source generates one split of a nexmark table. It implements
// exec.Source; the runtime calls it from one goroutine.
type Source struct {
	cfg       Config
	kind      kind
	fields    []field
	outs      []outColumn // the declared columns, in the chunks' order
	build     []outColumn // the columns built: outs, or all with Generate
	drop      [numKinds]*dropped
	walk      bool // some other table's events are built and dropped
	schema    *arrow.Schema
	gen       *generator
	batchSize int

	alloc       memory.Allocator      // env.Alloc: a task's recycling pool (exec/internal/recycle)
	metrics     *exec.OperatorMetrics // progress: events passed, events to come
	first       uint64                // the event the first Next started at
	now         func() time.Time      // env.Now
	instance    int                   // the split: instance of parallelism
	parallelism int
	cur         cursor
	thr         connector.Throttle
	opened      bool
	started     bool // Next was called: Seek is too late
	closed      bool
}

var (
	_ exec.Source     = (*Source)(nil)
	_ exec.Positioned = (*Source)(nil)
)

// New returns a source for cfg, which is validated. Which split it
// generates is decided by Open, from the Env's instance and parallelism.
func New(cfg Config) (*Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Table = strings.ToLower(strings.TrimSpace(cfg.Table))
	k, _ := tableKind(cfg.Table)
	outs, err := bindColumns(k, cfg.Table, cfg.Columns)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(outs))
	for i, o := range outs {
		fields[i] = types.Field(o.col.Name, o.col.Type, o.col.Nullable)
	}
	s := &Source{
		cfg:       cfg,
		kind:      k,
		fields:    fieldsOf(k),
		outs:      outs,
		build:     outs,
		schema:    arrow.NewSchema(fields, nil),
		gen:       newGenerator(k, &cfg),
		batchSize: cfg.BatchSize,
	}
	if s.batchSize == 0 {
		s.batchSize = DefaultBatchSize
	}
	s.setupGenerate()
	return s, nil
}

// Schema returns the schema of the chunks: the declared columns in their
// order, or all of the table's.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// Bounded implements exec.BoundedSource: with a number of events the
// source ends, even when a rate makes it wait for its next event.
func (s *Source) Bounded() bool { return s.cfg.Events > 0 }

// Finite implements exec.FiniteSource: with a number of events the
// source's input is finite for good, as the events are a function of
// their index and a resumed source goes on from the index it reached.
func (s *Source) Finite() bool { return s.cfg.Events > 0 }

// Open positions the source at the start of split env.Instance of
// env.Parallelism: it will generate the events of the blocks Instance,
// Instance + Parallelism, … of SplitBlock events of the global sequence
// that are of its table's kind. With
// a rate, the wall-clock schedule starts now.
func (s *Source) Open(ctx context.Context, env *exec.Env) error {
	switch {
	case s.closed:
		return errClosed
	case s.opened:
		return errAlreadyOpen
	}
	p := max(env.Parallelism, 1)
	if env.Instance < 0 || env.Instance >= p {
		return fmt.Errorf("nexmark connector: instance %d is not among the %d instances", env.Instance, p)
	}
	s.alloc = env.Alloc
	if s.alloc == nil {
		s.alloc = memory.DefaultAllocator
	}
	s.now, s.metrics = env.Now, env.Metrics
	s.instance, s.parallelism = env.Instance, p
	block := s.cfg.block
	if block == 0 {
		block = SplitBlock
	}
	s.cur = newBlockCursor(s.kind, env.Instance, p, s.cfg.Events, block)
	s.thr = connector.Throttle{Rate: s.cfg.Rate, Start: s.now()}
	s.openDropped()
	s.opened = true
	return nil
}

// Next returns the next chunk of at most BatchSize rows, in event order.
// After the split's last event of a bounded sequence it returns io.EOF.
// With a rate, it returns the events due by now and exec.ErrCaughtUp when
// the next one is not due yet. An unbounded split that never meets an event
// of its kind (table 'person' at a parallelism of 50, say) is always caught
// up.
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
		s.started, s.first = true, s.cur.n
	}
	defer s.reportInput()
	if s.walk {
		return s.nextWalking()
	}
	if !s.cur.seek() {
		if s.cfg.Events > 0 {
			return exec.Chunk{}, io.EOF
		}
		return exec.Chunk{}, exec.ErrCaughtUp
	}
	limit := uint64(math.MaxUint64)
	if s.thr.Rate > 0 {
		if limit = s.thr.LastDue(s.now()); s.cur.n > limit {
			return exec.Chunk{}, exec.ErrCaughtUp
		}
	}
	rows := s.batchSize
	if s.cfg.Events > 0 || s.thr.Rate > 0 {
		rows = s.cur.count(limit, rows)
	}
	b := newBatch(s.alloc, s.fields, s.build, rows)
	for b.rows < rows && s.cur.seek() && s.cur.n <= limit {
		s.gen.event(s.cur.n, b)
		s.cur.advance()
	}
	return exec.Chunk{Batch: b.finish(s.schema, s.outs)}, nil
}

// reportInput records the source's progress in events of the global
// sequence: passed since the first Next, and waiting — due by now with a
// rate, else every event to come of a bounded sequence (an unbounded one
// without a rate reports none: it has no end to wait for).
func (s *Source) reportInput() {
	if s.metrics == nil || (s.cfg.Events <= 0 && s.thr.Rate <= 0) {
		return
	}
	n := min(s.cur.n, s.cur.end)
	waiting := s.cur.end
	if s.thr.Rate > 0 {
		waiting = min(waiting, s.thr.LastDue(s.now())+1)
	}
	s.metrics.ReportInput(int64(n-s.first), int64(waiting)-int64(n))
}

// Wait blocks until the split's next event is due (with a rate) or ctx is
// done, and then returns ctx.Err(). Without a rate there is always an event
// ready, or the end of a bounded sequence, so it returns at once, except
// for an unbounded split that has no events: it waits for ctx.
func (s *Source) Wait(ctx context.Context) error {
	switch {
	case s.closed:
		return errClosed
	case !s.opened:
		return errNotOpen
	}
	if s.walk {
		return s.waitWalking(ctx)
	}
	if s.cur.seek() {
		if s.thr.Rate == 0 {
			return nil
		}
		return connector.SleepUntil(ctx, s.thr.Due(s.cur.n))
	}
	if s.cfg.Events > 0 {
		return nil // Next returns io.EOF
	}
	<-ctx.Done()
	return ctx.Err()
}

// Close ends the source. Chunks already returned stay valid. It is safe
// without Open and idempotent.
func (s *Source) Close() error {
	s.closeDropped()
	s.closed = true
	return nil
}
