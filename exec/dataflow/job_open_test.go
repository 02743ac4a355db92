package dataflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// gatedOpen is a sink whose Open waits for gate to close, then fails with
// err (when set) or records that it opened.
type gatedOpen struct {
	passthrough
	gate   chan struct{}
	err    error
	opened atomic.Bool
}

func (g *gatedOpen) Open(ctx context.Context, env *exec.Env) error {
	<-g.gate
	if g.err != nil {
		return g.err
	}
	g.opened.Store(true)
	return nil
}

// startGated starts a job reading an unbounded source (which never has
// data) into op.
func startGated(t *testing.T, op exec.Operator) *Job {
	t.Helper()
	alloc := memory.NewGoAllocator()
	g := GraphSpec{Stages: []StageSpec{sourceStage(exectest.NewSource(t, alloc)), stage(0, DistSingle, 1, only("sink", op))}}
	return startJob(t, g, JobOptions{Alloc: alloc})
}

// TestJobWaitOpened checks that WaitOpened returns once every task has
// opened its operators — not before, and without waiting for any input —
// or once the job failed to open.
func TestJobWaitOpened(t *testing.T) {
	t.Run("opened", func(t *testing.T) {
		op := &gatedOpen{gate: make(chan struct{})}
		job := startGated(t, op)
		short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if err := job.WaitOpened(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitOpened while Open waits: %v, want the deadline", err)
		}
		close(op.gate)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := job.WaitOpened(ctx); err != nil {
			t.Fatal(err)
		}
		if !op.opened.Load() {
			t.Fatal("WaitOpened returned before Open did")
		}
		if st, _ := job.State(); st != JobRunning {
			t.Fatalf("state %s, want running", st)
		}
	})
	t.Run("failed", func(t *testing.T) {
		boom := errors.New("boom")
		gate := make(chan struct{})
		close(gate)
		job := startGated(t, &gatedOpen{gate: gate, err: boom})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := job.WaitOpened(ctx); err != nil {
			t.Fatal(err)
		}
		if st, err := job.State(); st != JobFailed || !errors.Is(err, boom) {
			t.Fatalf("state %s, %v, want failed with boom", st, err)
		}
	})
}
