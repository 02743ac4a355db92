package dataflow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
)

// stepSnap is an exec.DeferredSnapshotter for the tests of snapshots
// written in steps: each snapshot is n entries ("<epoch>/<i>"), written
// one a step, and it records what the runtime calls, in order. With gate
// set, a step waits until gate is closed (or fail is, and it fails, or
// ctx ends).
type stepSnap struct {
	nopOp
	n          int
	gate, fail chan struct{}
	cost       time.Duration // the time an entry takes to write

	mu     sync.Mutex
	events []string
	w      exec.StateWriter
	epoch  uint64
	next   int // the next entry to write; n when none is pending
}

var _ exec.DeferredSnapshotter = (*stepSnap)(nil)

func (s *stepSnap) note(format string, args ...any) {
	s.mu.Lock()
	s.events = append(s.events, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

// seen returns the calls recorded, consecutive steps as one "steps".
func (s *stepSnap) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Compact(slices.Clone(s.events))
}

func (s *stepSnap) Open(context.Context, *exec.Env) error { s.next = s.n; return nil }

func (s *stepSnap) Process(context.Context, int, exec.Chunk, exec.Emitter) error {
	s.note("chunk")
	return nil
}

func (s *stepSnap) OnControl(_ context.Context, m exec.Control, _ exec.Emitter) error {
	if m.Kind == exec.EndOfInput {
		s.note("end")
	}
	return nil
}

func (s *stepSnap) Snapshot(ctx context.Context, epoch uint64, w exec.StateWriter) error {
	if _, err := s.BeginSnapshot(ctx, epoch, w); err != nil {
		return err
	}
	for done := false; !done; {
		var err error
		if done, err = s.SnapshotStep(ctx, 1); err != nil {
			return err
		}
	}
	return nil
}

func (s *stepSnap) BeginSnapshot(_ context.Context, epoch uint64, w exec.StateWriter) (bool, error) {
	if s.next < s.n {
		return false, fmt.Errorf("snapshot %d begun with %d entries of %d pending", epoch, s.n-s.next, s.epoch)
	}
	s.note("begin %d", epoch)
	s.w, s.epoch, s.next = w, epoch, 0
	return s.n > 0, nil
}

func (s *stepSnap) SnapshotStep(ctx context.Context, _ int) (bool, error) {
	if s.next == s.n {
		return true, nil
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-s.fail:
			return false, errors.New("step failed")
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	s.note("steps")
	time.Sleep(s.cost)
	if err := s.w.Put(0, fmt.Appendf(nil, "%d/%d", s.epoch, s.next), []byte("v")); err != nil {
		return false, err
	}
	if s.next++; s.next < s.n {
		return false, nil
	}
	s.note("done %d", s.epoch)
	return true, nil
}

func (*stepSnap) Restore(context.Context, exec.StateReader, exec.KeyGroupRange) error { return nil }

// stepTask returns a sink task (instance 0 of 1, one sender) running op
// with its state in a fresh store, its job, and the store.
func stepTask(t *testing.T, op exec.Operator) (*task, *Job, storage.StateStore) {
	t.Helper()
	_, store := checkpointed(t)
	j := &Job{progress: make(chan struct{}), state: JobRunning}
	ops := []exec.Operator{op}
	var written, read atomic.Int64
	st, err := newTaskState(store, StageSpec{Ops: make([]OpSpec, len(ops))}, 1, ops, exec.KeyGroupsOf(0, 1), &written, &read)
	if err != nil {
		t.Fatal(err)
	}
	tk := &task{job: j, align: newAligner(1), state: st, inbox: newInbox(1 << 20), env: exec.NewTestEnv(exectest.Alloc(t))}
	tk.chain = newChain(ops, []*exec.OperatorMetrics{{}}, discard{})
	tk.chain.snap = st
	if err := op.Open(context.Background(), tk.env); err != nil {
		t.Fatal(err)
	}
	return tk, j, store
}

// deferredCount returns the job's count of pending snapshots.
func (j *Job) deferredCount() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.deferred
}

// TestSnapshotStepsBetweenChunks: after a barrier the task forwards it
// and writes the pending snapshot a step between two chunks, finishes it
// before the end of input, and counts it pending in the job meanwhile.
// Each entry takes longer than a step's time, so a step writes one.
func TestSnapshotStepsBetweenChunks(t *testing.T) {
	alloc := exectest.Alloc(t)
	op := &stepSnap{n: 6, cost: 2 * minStepTime}
	tk, j, _ := stepTask(t, op)
	ctx := context.Background()
	put := func(m message) {
		t.Helper()
		if !tk.inbox.tryPut(m) {
			t.Fatal("inbox full")
		}
	}
	put(message{ctrl: exec.Control{Kind: exec.Barrier, Epoch: 1}})
	for range 3 {
		put(message{chunk: exectest.Chunk(t, alloc, "bigint\n+I 1")})
	}
	put(message{ctrl: exec.Control{Kind: exec.EndOfInput}})
	if err := tk.runInbox(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"begin 1", "steps", "chunk", "steps", "chunk", "steps", "chunk", "steps", "done 1", "end"}
	if got := op.seen(); !slices.Equal(got, want) {
		t.Fatalf("the operator saw %v, want %v", got, want)
	}
	if j.barrier != 1 || j.deferredCount() != 0 {
		t.Fatalf("barrier %d reached the sink, %d snapshots pending; want 1, 0", j.barrier, j.deferredCount())
	}
}

// TestBarrierFinishesThePendingSnapshot: a barrier handled while the
// previous epoch's snapshot is pending finishes it first (the operator
// never has two), and the job counts one pending snapshot per task.
func TestBarrierFinishesThePendingSnapshot(t *testing.T) {
	op := &stepSnap{n: 3}
	tk, j, _ := stepTask(t, op)
	ctx := context.Background()
	for epoch := uint64(1); epoch <= 2; epoch++ {
		if err := tk.deliver(ctx, exec.Control{Kind: exec.Barrier, Epoch: epoch}); err != nil {
			t.Fatal(err)
		}
		if n := j.deferredCount(); n != 1 {
			t.Fatalf("after barrier %d: %d snapshots pending, want 1", epoch, n)
		}
	}
	want := []string{"begin 1", "steps", "done 1", "begin 2"}
	if got := op.seen(); !slices.Equal(got, want) {
		t.Fatalf("the operator saw %v, want %v", got, want)
	}
	if s := j.timingOf(2).sync; s <= 0 {
		t.Errorf("sync time %v: finishing snapshot 1 at barrier 2 is part of it", s)
	}
}

// gatedJob runs source → stepSnap (gated, two entries) → sink with state
// in a fresh store, and returns the job, the operator and the store.
func gatedJob(t *testing.T) (*Job, *stepSnap, *exectest.Source, storage.StateStore) {
	t.Helper()
	_, store := checkpointed(t)
	op := &stepSnap{n: 2, gate: make(chan struct{}), fail: make(chan struct{})}
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")
	g := exchanged(src, DistForward, 1, only("steps", op), &passthrough{})
	job := startJob(t, g, JobOptions{Alloc: exectest.Alloc(t), State: store})
	return job, op, src, store
}

// startCheckpoint takes checkpoint epoch of job in the background, once
// the source's rows are through, and waits until its barrier has reached
// the sink; the checkpoint's error arrives on the channel returned.
func startCheckpoint(t *testing.T, ctx context.Context, job *Job, epoch uint64) <-chan error {
	t.Helper()
	flushed(t, ctx, job, epoch)
	done := make(chan error, 1)
	go func() { done <- job.Checkpoint(ctx, epoch) }()
	if err := job.waitFor(ctx, func() bool { return job.barrier >= epoch }); err != nil {
		t.Fatal(err)
	}
	return done
}

// TestCommitWaitsForSnapshotSteps: the barrier reaches the sink while a
// task's snapshot is still pending, and the epoch commits only once its
// steps have written it; the checkpoint's deferred time is theirs.
func TestCommitWaitsForSnapshotSteps(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	job, op, src, store := gatedJob(t)
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
	if last, err := store.Recover(ctx); err != nil || last != 1 {
		t.Fatalf("last committed epoch %d (%v), want 1", last, err)
	}
	if keys, want := committedKeys(t, store, stateTableName(1, 0)), []string{"1/0", "1/1"}; !slices.Equal(keys, want) {
		t.Fatalf("committed %q, want %q", keys, want)
	}
	stat := job.Checkpoints()[0]
	if stat.Deferred < 50*time.Millisecond || stat.Sync >= stat.Deferred {
		t.Errorf("sync %v, deferred %v: want the steps' 50ms and more in deferred only", stat.Sync, stat.Deferred)
	}
	src.End()
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestJobEndsWhileSnapshotPending: a checkpoint waiting for a pending
// snapshot fails, and does not hang, when the job fails or is stopped
// meanwhile.
func TestJobEndsWhileSnapshotPending(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(*Job, *stepSnap)
		want string
	}{
		{"fails", func(_ *Job, op *stepSnap) { close(op.fail) }, "the job failed"},
		{"stops", func(job *Job, _ *stepSnap) { job.Stop() }, "the job ended"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			job, op, _, _ := gatedJob(t)
			done := startCheckpoint(t, ctx, job, 1)
			tc.end(job, op)
			if err := <-done; err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkpoint: %v, want an error saying %q", err, tc.want)
			}
			job.Stop()
		})
	}
}

// TestSourceTaskStepsItsSnapshot: a pending snapshot of an operator
// chained behind a source is written while the source has no data (the
// task does not sleep on it), so that the checkpoint commits.
func TestSourceTaskStepsItsSnapshot(t *testing.T) {
	ctx, store := checkpointed(t)
	op := &stepSnap{n: 5}
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1")
	g := GraphSpec{Stages: []StageSpec{sourceStage(src, only("steps", op)), stage(0, DistSingle, 1, only("sink", &passthrough{}))}}
	job := startJob(t, g, JobOptions{Alloc: exectest.Alloc(t), State: store})
	checkpointAfterFlush(t, ctx, job, 1, 1)
	if want := []string{"chunk", "begin 1", "steps", "done 1"}; !slices.Equal(op.seen(), want) {
		t.Fatalf("the operator saw %v, want %v", op.seen(), want)
	}
	src.End()
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// budgetSnap is a deferred snapshot of n entries that writes its budget
// of them at each step, taking cost per step whatever its budget, and
// records the budgets it was given.
type budgetSnap struct {
	stepSnap
	cost    time.Duration
	budgets []int
}

func (s *budgetSnap) SnapshotStep(_ context.Context, budget int) (bool, error) {
	s.budgets = append(s.budgets, budget)
	time.Sleep(s.cost)
	for ; budget > 0 && s.next < s.n; budget-- {
		if err := s.w.Put(0, fmt.Appendf(nil, "%d", s.next), nil); err != nil {
			return false, err
		}
		s.next++
	}
	return s.next == s.n, nil
}

// TestSnapshotStepRunsSubStepsUntilItsTime: a step calls the operator
// with budgets of at most subStepEntries until its time is up, so that a
// step of entries cheaper than estimated goes on for its time, and one of
// entries dearer than estimated stops after a sub-step past its time.
func TestSnapshotStepRunsSubStepsUntilItsTime(t *testing.T) {
	ctx := context.Background()
	op := &budgetSnap{stepSnap: stepSnap{n: 1 << 30}, cost: 100 * time.Microsecond}
	tk, _, _ := stepTask(t, op)
	if err := tk.state.snapshot(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	target := 20 * time.Millisecond
	start := time.Now()
	if done, err := tk.state.step(ctx, target); done || err != nil {
		t.Fatalf("step: done %v, %v", done, err)
	}
	if d := time.Since(start); d < target {
		t.Fatalf("the step ended after %v, before its %v", d, target)
	}
	if len(op.budgets) < 2 {
		t.Fatalf("one sub-step of budget %v in a step of %v taking %v each", op.budgets, target, op.cost)
	}
	for _, b := range op.budgets {
		if b < 1 || b > subStepEntries {
			t.Fatalf("sub-step budgets %v, want each within 1..%d", op.budgets, subStepEntries)
		}
	}
	// With each sub-step taking 50 ms, a step of 20 ms stops after its
	// first.
	op.budgets, op.cost = nil, 50*time.Millisecond
	if _, err := tk.state.step(ctx, target); err != nil {
		t.Fatal(err)
	}
	if len(op.budgets) != 1 {
		t.Fatalf("%d sub-steps of 50 ms in a step of %v, want 1", len(op.budgets), target)
	}
	// A step with no time limit (finishing a snapshot) stops after a
	// sub-step once the job is stopping.
	op.budgets, op.cost = nil, 0
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if done, err := tk.state.step(stopped, time.Duration(math.MaxInt64)); done || err != nil || len(op.budgets) != 1 {
		t.Fatalf("a step of a stopping job: done %v, %v, %d sub-steps; want 1, unfinished", done, err, len(op.budgets))
	}
}

// committedKeys returns the keys of a state table, without their key
// group, in order.
func committedKeys(t *testing.T, store storage.StateStore, table string) []string {
	t.Helper()
	tab, err := store.Table(table, storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	if err := tab.Scan(nil, func(k, _ []byte) error { keys = append(keys, string(k[groupKeyLen:])); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}
