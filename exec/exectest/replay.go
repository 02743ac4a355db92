package exectest

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/exec"
)

// Replay is a bounded source that emits prepared batches in order, then
// io.EOF: the source of runtime tests and benchmarks whose input is built
// beforehand. It retains each batch it emits for the receiver, so the
// caller keeps its references (and releases them when done) and may
// replay the same batches in many jobs. Ops, when set, gives each batch's
// ops (nil for a batch of inserts). Open rewinds it.
type Replay struct {
	Batches []arrow.RecordBatch
	Ops     [][]exec.Op
	next    int
}

var _ exec.Source = (*Replay)(nil)

// Open implements exec.Source: it rewinds to the first batch.
func (s *Replay) Open(context.Context, *exec.Env) error { s.next = 0; return nil }

// Next implements exec.Source.
func (s *Replay) Next(context.Context) (exec.Chunk, error) {
	if s.next == len(s.Batches) {
		return exec.Chunk{}, io.EOF
	}
	c := exec.Chunk{Batch: s.Batches[s.next]}
	if s.Ops != nil {
		c.Ops = s.Ops[s.next]
	}
	s.next++
	c.Batch.Retain()
	return c, nil
}

// Wait implements exec.Source; a Replay never waits.
func (s *Replay) Wait(context.Context) error { return nil }

// Close implements exec.Source.
func (s *Replay) Close() error { return nil }

// Counter is an operator that counts the rows that reach it: a sink for
// runtime tests and benchmarks that measure what comes before it. It
// emits nothing unless Pass is set, and sleeps Delay on every chunk when
// set, like a throttled writer. It is safe to read Rows while a job runs.
type Counter struct {
	// Pass says the counter emits every chunk it receives.
	Pass bool
	// Delay is how long Process sleeps on every chunk.
	Delay time.Duration
	rows  atomic.Int64
}

var _ exec.Operator = (*Counter)(nil)

// Rows returns the number of rows counted.
func (c *Counter) Rows() int64 { return c.rows.Load() }

// Open implements exec.Operator.
func (c *Counter) Open(context.Context, *exec.Env) error { return nil }

// Process implements exec.Operator.
func (c *Counter) Process(ctx context.Context, _ int, ch exec.Chunk, out exec.Emitter) error {
	if c.Delay > 0 {
		time.Sleep(c.Delay)
	}
	c.rows.Add(int64(ch.NumRows()))
	if c.Pass {
		return out.Emit(ctx, ch)
	}
	return nil
}

// OnControl implements exec.Operator.
func (c *Counter) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// Close implements exec.Operator.
func (c *Counter) Close() error { return nil }

// Drain reads src to its end (io.EOF), waiting whenever it is caught up,
// and hands each chunk to each, which must not keep it: Drain releases it
// after. It returns the first error of src or each.
func Drain(ctx context.Context, src exec.Source, each func(c exec.Chunk) error) error {
	for {
		c, err := src.Next(ctx)
		switch {
		case err == nil:
			err = each(c)
			c.Batch.Release()
			if err != nil {
				return err
			}
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, exec.ErrCaughtUp):
			if err := src.Wait(ctx); err != nil {
				return err
			}
		default:
			return err
		}
	}
}
