package dataflow

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
)

// A stage's output goes to the inputs of later stages that read it: one,
// or several when the query uses one sub-plan in several places (q5's
// per-auction counts feed both the join and the maximum the join
// compares them with) and the planner runs it once. Each input has its
// own exchange — its distribution, keys and columns — so the stage's
// tasks write to one outWriter per input, the same chunk to each.

// output is what a task's chain writes to when its stage is not the sink:
// one consumer's outWriter, or a fanout over several.
type output interface {
	exec.Emitter
	// control sends a control message to every consumer instance, after
	// the rows waiting to be coalesced.
	control(ctx context.Context, m exec.Control) error
	// flush sends the rows waiting to be coalesced.
	flush(ctx context.Context) error
	// release releases the rows never sent, when the task closes.
	release()
}

var (
	_ output = (*outWriter)(nil)
	_ output = fanout(nil)
)

// fanout sends a stage's output to each of several consumers, in the
// order of the stages: a consumer that is behind holds back the others,
// as the inboxes' budgets bound what any of them queues.
type fanout []*outWriter

// Emit implements exec.Emitter. Each writer retains what it sends, so the
// chunk stays borrowed.
func (f fanout) Emit(ctx context.Context, c exec.Chunk) error {
	for _, w := range f {
		if err := w.Emit(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func (f fanout) control(ctx context.Context, m exec.Control) error {
	for _, w := range f {
		if err := w.control(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

func (f fanout) flush(ctx context.Context) error {
	for _, w := range f {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (f fanout) release() {
	for _, w := range f {
		w.release()
	}
}

// projected returns c with only the columns w.project, in their order,
// and a function that releases it. The columns are c's, retained: no
// value is copied.
func (w *outWriter) projected(c exec.Chunk) (exec.Chunk, func()) {
	b := c.Batch
	if s := b.Schema(); s != w.from {
		w.from, w.schema = s, projectSchema(s, w.project)
	}
	cols := make([]arrow.Array, len(w.project))
	for i, k := range w.project {
		cols[i] = b.Column(k)
	}
	rec := array.NewRecordBatch(w.schema, cols, b.NumRows())
	return exec.Chunk{Batch: rec, Ops: c.Ops}, rec.Release
}

// projectSchema returns the schema of the columns ords of s.
func projectSchema(s *arrow.Schema, ords []int) *arrow.Schema {
	fields := make([]arrow.Field, len(ords))
	for i, k := range ords {
		fields[i] = s.Field(k)
	}
	return arrow.NewSchema(fields, nil)
}
