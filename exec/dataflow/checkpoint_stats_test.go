package dataflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/storage"
)

// slowSnapshot is a stateful operator whose Snapshot takes at least
// delay and writes nothing.
type slowSnapshot struct {
	nopOp
	delay time.Duration
}

func (*slowSnapshot) Process(context.Context, int, exec.Chunk, exec.Emitter) error { return nil }

func (s *slowSnapshot) Snapshot(context.Context, uint64, exec.StateWriter) error {
	time.Sleep(s.delay)
	return nil
}

func (*slowSnapshot) Restore(context.Context, exec.StateReader, exec.KeyGroupRange) error { return nil }

// TestBarrierTimings: a task with two senders reports how long it held a
// barrier back, from the first sender's to the second's, and how long its
// operators spent in Snapshot; the job keeps the longest of each per
// epoch, and the figures of an earlier epoch arriving late are dropped.
func TestBarrierTimings(t *testing.T) {
	_, store := checkpointed(t)
	j := &Job{progress: make(chan struct{}), state: JobRunning}
	ops := []exec.Operator{&slowSnapshot{delay: 15 * time.Millisecond}}
	var written, read atomic.Int64
	st, err := newTaskState(store, StageSpec{Ops: make([]OpSpec, len(ops))}, 1, ops, exec.KeyGroupsOf(0, 1), &written, &read)
	if err != nil {
		t.Fatal(err)
	}
	tk := &task{job: j, align: newAligner(2), state: st}
	tk.chain = newChain(ops, []*exec.OperatorMetrics{{}}, discard{})
	tk.chain.snap = st
	ctx := context.Background()
	barrier := func(sender int, epoch uint64) {
		t.Helper()
		if _, err := tk.handle(ctx, message{sender: sender, ctrl: exec.Control{Kind: exec.Barrier, Epoch: epoch}}); err != nil {
			t.Fatal(err)
		}
	}
	barrier(0, 1)
	time.Sleep(30 * time.Millisecond)
	barrier(1, 1)
	got := j.timingOf(1)
	if got.aligning < 30*time.Millisecond || got.aligning > 10*time.Second {
		t.Errorf("epoch 1 aligned for %v, want the 30ms between its barriers", got.aligning)
	}
	if got.sync < 15*time.Millisecond {
		t.Errorf("epoch 1's snapshot took %v, want the operator's 15ms", got.sync)
	}

	// Epoch 2 arrives from both senders at once: no alignment to speak
	// of, and the longer figures of another task count.
	barrier(1, 2)
	barrier(0, 2)
	if got := j.timingOf(2); got.aligning > got.sync || got.sync < 15*time.Millisecond {
		t.Errorf("epoch 2: aligned %v, snapshot %v; want no wait and the operator's 15ms", got.aligning, got.sync)
	}
	j.noteBarrier(2, time.Hour, time.Minute)
	j.noteBarrier(1, 2*time.Hour, 2*time.Hour) // too late
	if got := j.timingOf(2); got.sync != time.Hour || got.aligning != time.Minute {
		t.Errorf("epoch 2 after another task's report: %+v", got)
	}
	if got := j.timingOf(1); got != (barrierTiming{}) {
		t.Errorf("epoch 1 is still known after epoch 2: %+v", got)
	}
}

// TestCheckpointStats: the checkpoints a job takes record the size of its
// whole committed state, as the store reports it, alongside what each
// wrote.
func TestCheckpointStats(t *testing.T) {
	ctx, store := checkpointed(t)
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1\n+I 2\n+I 2\n+I 3")
	job, _ := countingJob(t, src, 2, store, false)
	defer job.Stop()
	checkpointAfterFlush(t, ctx, job, 1, 1)
	first := storeBytes(t, store)
	src.Add("bigint\n+I 4\n+I 5")
	checkpointAfterFlush(t, ctx, job, 2, 2)
	second := storeBytes(t, store)
	stats := job.Checkpoints()
	if len(stats) != 2 || stats[0].StateBytes != first || stats[1].StateBytes != second {
		t.Fatalf("checkpoints %+v, want two with state of %d and %d bytes", stats, first, second)
	}
	// Two more keys of 8 bytes, 8-byte counts and 2-byte groups, each
	// with its table's encoded name; the source's position has the same
	// size.
	entry := int64(len(storage.AppendString(nil, stateTableName(1, 0))) + 2 + 8 + 8)
	if second-first != 2*entry {
		t.Errorf("the state grew by %d bytes with two keys, want %d", second-first, 2*entry)
	}
	if stats[1].Bytes >= second {
		t.Errorf("checkpoint 2 wrote %d bytes, its whole state is %d: not incremental", stats[1].Bytes, second)
	}
}

// TestRestoreErrors: a job whose checkpoint does not restore fails,
// before any input, with a *RestoreError naming the epoch and saying
// whether the checkpoint is damaged.
func TestRestoreErrors(t *testing.T) {
	ctx, store := checkpointed(t)
	src := exectest.NewSource(t, exectest.Alloc(t), "bigint\n+I 1\n+I 2")
	job, _ := countingJob(t, src, 2, store, false)
	checkpointAfterFlush(t, ctx, job, 1, 4)
	job.Stop()

	// The source's position, damaged.
	positions, err := store.Table(sourceTableName(0), storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := positions.Put([]byte{0, 0}, []byte("garbage")); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, 5); err != nil {
		t.Fatal(err)
	}
	job, _ = countingJob(t, exectest.NewSource(t, exectest.Alloc(t)), 2, store, true)
	if err := job.Wait(ctx); err == nil {
		t.Fatal("a job restoring a damaged source position ran")
	}
	var re *RestoreError
	if _, err := job.State(); !errors.As(err, &re) || re.Epoch != 5 || !re.Damaged || !errors.Is(err, errBadPosition) {
		t.Fatalf("restoring a damaged source position: %v (%+v)", err, re)
	}
}

// storeBytes returns the size of the committed state store holds.
func storeBytes(t *testing.T, store storage.StateStore) int64 {
	t.Helper()
	n, err := store.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return n
}
