package dataflow

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// gatedSink records rows like recorder, except that instance gated waits
// for open before each chunk.
type gatedSink struct {
	*recorder
	open chan struct{}
}

func (g gatedSink) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	select {
	case <-g.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.recorder.Process(ctx, in, c, out)
}

// TestParallelSinkStage: a sink stage of several instances (a sink that
// discards its rows runs at its input's parallelism). A flush marker has
// reached the sink once it reached every instance, so FLUSH waits for the
// slowest; the job finishes once every instance saw the end of its input.
func TestParallelSinkStage(t *testing.T) {
	alloc := exectest.Alloc(t)
	src := exectest.NewSource(t, alloc)
	rec := &recorder{}
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	defer release()
	sink := OpSpec{Name: "sink", New: func(inst int) (exec.Operator, error) {
		if inst == 2 {
			return gatedSink{rec, gate}, nil
		}
		return rec, nil
	}}
	job := startJob(t, GraphSpec{Stages: []StageSpec{sourceStage(src), stage(0, DistHash, 3, sink)}}, JobOptions{Alloc: alloc})
	src.Push(exec.Chunk{Batch: intBatch(alloc, 0, 300)})
	job.RequestFlush(1)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	err := job.WaitFlushed(ctx, 1)
	cancel()
	if err == nil {
		t.Fatal("the flush completed while one sink instance held its rows")
	}
	release()
	if err := job.WaitFlushed(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if got := len(rec.sorted()); got != 300 {
		t.Fatalf("after the flush the sink instances hold %d rows, want 300", got)
	}
	src.End()
	if err := job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := job.State(); st != JobFinished {
		t.Fatalf("state %s", st)
	}
	end := exec.Control{Kind: exec.EndOfInput}.String()
	if n := len(slices.DeleteFunc(rec.seen(), func(e string) bool { return e != end })); n != 3 {
		t.Fatalf("the sink instances saw %d ends of input, want 3", n)
	}
}
