package dataflow

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// bgSnapOp is an exec.BackgroundSnapshotter for the runtime's tests: each
// snapshot is n entries ("<epoch>/<i>"), written by a goroutine of its
// own on a forked writer once gate is closed.
type bgSnapOp struct {
	nopOp
	n    int
	gate chan struct{}

	busySteps atomic.Int64 // SnapshotSteps called while the writer ran
	fork      exec.ForkedStateWriter
	done      chan struct{}
	err       error
}

var _ exec.BackgroundSnapshotter = (*bgSnapOp)(nil)

func (o *bgSnapOp) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	return exec.SnapshotAtOnce(ctx, o, epoch, w)
}

func (o *bgSnapOp) BeginSnapshot(ctx context.Context, epoch uint64, w exec.StateWriter) (bool, error) {
	if err := exec.FinishSnapshot(ctx, o); err != nil {
		return false, err
	}
	f, ok := w.(exec.StateWriterForker)
	if !ok {
		return false, fmt.Errorf("the runtime's writer %T does not fork", w)
	}
	o.fork, o.done = f.Fork(), make(chan struct{})
	go func() {
		defer close(o.done)
		select {
		case <-o.gate:
		case <-ctx.Done():
			o.err = ctx.Err()
			return
		}
		for i := range o.n {
			if o.err = o.fork.Put(0, fmt.Appendf(nil, "%d/%d", epoch, i), []byte("value")); o.err != nil {
				return
			}
		}
		o.err = o.fork.Flush()
	}()
	return true, nil
}

func (o *bgSnapOp) SnapshotBusy() <-chan struct{} { return o.done }

func (o *bgSnapOp) SnapshotStep(context.Context, int) (bool, error) {
	if o.done == nil {
		return true, nil
	}
	select {
	case <-o.done:
	default:
		o.busySteps.Add(1)
		return false, nil
	}
	err := o.err
	if jerr := o.fork.Join(); err == nil {
		err = jerr
	}
	o.done, o.fork = nil, nil
	return err == nil, err
}

func (*bgSnapOp) Process(context.Context, int, exec.Chunk, exec.Emitter) error { return nil }

func (*bgSnapOp) Restore(context.Context, exec.StateReader, exec.KeyGroupRange) error { return nil }

// TestCommitWaitsForBackgroundSnapshot: a snapshot written on the
// operator's own goroutine holds the epoch's commit back until it is
// done, the task (idle meanwhile, with no input) is woken by its end
// rather than by input, the runtime never calls SnapshotStep while it
// runs, and the checkpoint counts the entries written on the forked
// writer, and the writer's time as its deferred part.
func TestCommitWaitsForBackgroundSnapshot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, store := checkpointed(t)
	op := &bgSnapOp{n: 3, gate: make(chan struct{})}
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")
	job := startJob(t, exchanged(src, DistForward, 1, only("background", op), &passthrough{}),
		JobOptions{Alloc: exectest.Alloc(t), State: store})
	done := startCheckpoint(t, ctx, job, 1)
	select {
	case err := <-done:
		t.Fatalf("checkpoint returned (%v) before the snapshot was written", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(op.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := op.busySteps.Load(); n != 0 {
		t.Errorf("SnapshotStep called %d times while the writer ran, want none", n)
	}
	if keys, want := committedKeys(t, store, stateTableName(1, 0)), []string{"1/0", "1/1", "1/2"}; !slices.Equal(keys, want) {
		t.Fatalf("committed %q, want %q", keys, want)
	}
	stat := job.Checkpoints()[0]
	if stat.Bytes != 3*int64(groupKeyLen+len("1/0")+len("value")) {
		t.Errorf("checkpoint wrote %d bytes, want the forked writer's 3 entries", stat.Bytes)
	}
	if stat.Deferred < 50*time.Millisecond || stat.Sync >= stat.Deferred {
		t.Errorf("sync %v, deferred %v: want the writer's 50ms and more in deferred only", stat.Sync, stat.Deferred)
	}
	src.End()
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// countingSource counts the calls to Next of the source it wraps.
type countingSource struct {
	*exectest.Source
	nexts atomic.Int64
}

func (s *countingSource) Next(ctx context.Context) (exec.Chunk, error) {
	s.nexts.Add(1)
	return s.Source.Next(ctx)
}

// TestSourceTaskWaitsForBackgroundSnapshot: an operator chained behind a
// source that has caught up writes its snapshot in the background; the
// source task waits in the source's Wait (it does not ask the source
// again and again meanwhile) and is woken by the writer's end, so that
// the checkpoint commits.
func TestSourceTaskWaitsForBackgroundSnapshot(t *testing.T) {
	ctx, store := checkpointed(t)
	op := &bgSnapOp{n: 2, gate: make(chan struct{})}
	src := &countingSource{Source: exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")}
	g := GraphSpec{Stages: []StageSpec{sourceStage(src, only("background", op)), stage(0, DistSingle, 1, only("sink", &passthrough{}))}}
	job := startJob(t, g, JobOptions{Alloc: exectest.Alloc(t), State: store})
	done := startCheckpoint(t, ctx, job, 1)
	before := src.nexts.Load()
	time.Sleep(50 * time.Millisecond)
	if n := src.nexts.Load() - before; n > 5 {
		t.Errorf("the source was asked %d times in 50 ms while the snapshot's writer ran", n)
	}
	close(op.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := op.busySteps.Load(); n != 0 {
		t.Errorf("SnapshotStep called %d times while the writer ran, want none", n)
	}
	src.End()
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}
