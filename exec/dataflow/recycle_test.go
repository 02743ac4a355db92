package dataflow

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/recycle"
)

// countingAlloc counts the buffers it allocates.
type countingAlloc struct {
	memory.Allocator
	n atomic.Int64
}

func (a *countingAlloc) Allocate(size int) []byte {
	a.n.Add(1)
	return a.Allocator.Allocate(size)
}

// copier emits a copy of each chunk, built with its task's allocator.
type copier struct {
	nopOp
	alloc memory.Allocator
}

func (c *copier) Open(_ context.Context, env *exec.Env) error { c.alloc = env.Alloc; return nil }

func (c *copier) Process(ctx context.Context, _ int, ch exec.Chunk, out exec.Emitter) error {
	rows := make([]int32, ch.Batch.NumRows())
	for i := range rows {
		rows[i] = int32(i)
	}
	cp, err := exec.TakeRows(c.alloc, ch, rows)
	if err != nil {
		return err
	}
	defer cp.Batch.Release() // Emit borrows it
	return out.Emit(ctx, cp)
}

// TestTasksRecycleOutputBuffers runs 400 batches through an operator that
// copies each into a new batch (released once the sink, in the same task,
// has seen it): the copies reuse the buffers released before them (the job's
// allocator is asked for a few, not one per copy), and every buffer goes
// back to it when the job ends.
func TestTasksRecycleOutputBuffers(t *testing.T) {
	checked := exectest.Alloc(t)
	src := intReplay(t, checked, 0, 400*exec.BatchRows, 1)
	alloc := &countingAlloc{Allocator: checked}
	g := GraphSpec{Stages: []StageSpec{sourceStage(src, OpSpec{Name: "copy", New: func(int) (exec.Operator, error) {
		return &copier{}, nil
	}}, only("sink", &exectest.Counter{}))}}
	job := runJob(t, g, JobOptions{Alloc: alloc})
	if _, ok := job.stages[0].tasks[0].env.Alloc.(*recycle.Pool); !ok {
		t.Fatalf("a task allocates with %T, not its pool", job.stages[0].tasks[0].env.Alloc)
	}
	if n := alloc.n.Load(); n > 40 {
		t.Errorf("400 copies allocated %d buffers from the job's allocator", n)
	}
}
