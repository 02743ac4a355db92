package dataflow

import (
	"context"
	"sync"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// holder defers its output: it keeps every chunk until FlushDeferred or a
// control message, and counts the flushes its task asked for.
type holder struct {
	nopOp
	mu      sync.Mutex
	held    []exec.Chunk
	flushes int
}

func (h *holder) Process(_ context.Context, _ int, c exec.Chunk, _ exec.Emitter) error {
	h.held = append(h.held, c.Keep())
	return nil
}

func (h *holder) emit(ctx context.Context, out exec.Emitter) error {
	held := h.held
	h.held = nil
	var err error
	for _, c := range held {
		if err == nil {
			err = out.Emit(ctx, c)
		}
		c.Batch.Release()
	}
	return err
}

func (h *holder) FlushDeferred(ctx context.Context, out exec.Emitter) error {
	h.mu.Lock()
	h.flushes++
	h.mu.Unlock()
	return h.emit(ctx, out)
}

func (h *holder) OnControl(ctx context.Context, _ exec.Control, out exec.Emitter) error {
	return h.emit(ctx, out)
}

func (h *holder) Close() error {
	for _, c := range h.held {
		c.Batch.Release()
	}
	h.held = nil
	return nil
}

// TestTaskFlushesDeferredOutputWhenIdle checks that a task has the
// operators of its chain that defer output emit it before it waits for
// input, with no control message: in a source's stage, in the middle of an
// inbox's stage (into its exchange) and in the sink's stage.
func TestTaskFlushesDeferredOutputWhenIdle(t *testing.T) {
	alloc := exectest.Alloc(t)
	src := exectest.NewSource(t, alloc)
	atSource, mid, atSink := &holder{}, &holder{}, &holder{}
	sink := &recorder{}
	g := GraphSpec{Stages: []StageSpec{
		sourceStage(src, only("hold", atSource)),
		stage(0, DistHash, 2, OpSpec{Name: "hold", New: func(i int) (exec.Operator, error) {
			if i == 0 {
				return mid, nil
			}
			return &holder{}, nil
		}}),
		stage(1, DistSingle, 1, only("hold", atSink), only("sink", sink)),
	}}
	job := startJob(t, g, JobOptions{Alloc: alloc, Coalesce: true})
	src.Add("bigint\n+I 1\n+I 2\n+I 3\n+I 4")
	sink.waitRows(t, 4, "output deferred for good")
	job.Stop()
	for name, h := range map[string]*holder{"source stage": atSource, "middle stage": mid, "sink stage": atSink} {
		h.mu.Lock()
		if h.flushes == 0 {
			t.Errorf("%s: its task never asked the operator to flush", name)
		}
		h.mu.Unlock()
	}
}
