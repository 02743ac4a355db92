package dataflow

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/internal/giveway"
)

// busyOp takes d over every chunk, as if computing, and records for each
// whether the cores counted as contended (giveway.Saturated) once it was
// done.
type busyOp struct {
	nopOp
	d         time.Duration
	mu        sync.Mutex
	saturated []bool
}

func (b *busyOp) Process(ctx context.Context, _ int, c exec.Chunk, out exec.Emitter) error {
	time.Sleep(b.d)
	b.mu.Lock()
	b.saturated = append(b.saturated, giveway.Saturated())
	b.mu.Unlock()
	return out.Emit(ctx, c)
}

// gappedSource emits its batches one every gap.
type gappedSource struct {
	exectest.Replay
	gap time.Duration
}

func (s *gappedSource) Next(ctx context.Context) (exec.Chunk, error) {
	time.Sleep(s.gap)
	return s.Replay.Next(ctx)
}

// TestTaskDemand checks that a task counts as saturated, for the
// checkpoint's background work to give way to it, once its input has
// waited for it for 20 ms on end, and never while it keeps up.
func TestTaskDemand(t *testing.T) {
	alloc := exectest.Alloc(t)
	insert := func(int64) exec.Op { return exec.Insert }
	// Eight chunks queued at once, 10 ms each: the task is busy for 80
	// ms on end.
	op := &busyOp{d: 10 * time.Millisecond}
	runJob(t, exchanged(smallChunks(t, alloc, 8, 4, insert), DistSingle, 1, only("busy", op), &recorder{}), JobOptions{Alloc: alloc})
	if len(op.saturated) != 8 {
		t.Fatalf("%d chunks processed, want 8", len(op.saturated))
	}
	if op.saturated[0] || !op.saturated[7] {
		t.Fatalf("saturated after each chunk: %v; want not after the first (10 ms busy), and after the last (80 ms)", op.saturated)
	}
	if giveway.Saturated() {
		t.Fatal("saturated after the job ended")
	}
	// A chunk every 5 ms, 1 ms each: the task waits for every chunk.
	op = &busyOp{d: time.Millisecond}
	src := &gappedSource{Replay: *smallChunks(t, alloc, 30, 4, insert), gap: 5 * time.Millisecond}
	runJob(t, exchanged(src, DistSingle, 1, only("busy", op), &recorder{}), JobOptions{Alloc: alloc})
	for i, s := range op.saturated {
		if s {
			t.Fatalf("saturated after chunk %d of a task that keeps up with its input", i)
		}
	}
}
