package dataflow

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/eddysql/eddy/exec"
)

// Snapshots written in steps (exec.DeferredSnapshotter), or in the
// background (exec.BackgroundSnapshotter). At the aligned
// barrier an operator that implements it only begins its snapshot (it
// captures what changed, copy-on-write), and the task forwards the
// barrier at once, having counted its pending snapshot in the job
// (Job.deferred). Then the task writes the rest in steps on its own
// goroutine: one after each message it handles, taking about a quarter of the
// time its last chunk took, and, while no input waits, one after another.
// It finishes the snapshot at once before it handles the next barrier or
// the end of input, so an operator never has two snapshots pending and a
// job that ends has written every snapshot. An operator may instead
// write its snapshot on a goroutine of its own: then steps do nothing, the
// task waits for its input or for that writer, and the step after the
// writer is done finishes the snapshot. The job commits an epoch once
// its barrier has reached the sink and no task has a snapshot pending; a
// task that fails leaves its snapshot pending, and the checkpoint waiting
// for it fails as the job does.

// Step sizes. While input waits, a step takes about 1/stepShare of the
// time the task took for its last chunk, within [minStepTime,
// maxStepTime]: a chunk behind a step waits at most a quarter again its
// own time (the bound on pauses is twice the median batch), and
// the snapshot still gets about a fifth of the task's time, so it ends
// (the hash aggregate's 3.4M entries a second at 10M keys in about 0.35 s;
// with a share of a half, stalls were longer and checkpoints hardly
// sooner: docs/benchmarks.md, Pauses). With
// no input waiting a step takes maxStepTime, short enough that input
// arriving meanwhile waits little. A step is a loop of sub-steps of at
// most subStepEntries entries each, until its time is up: an estimate of
// the time per entry that is off (entries cost more when the store grows
// or the operator's state is out of cache) then lengthens a step by one
// sub-step at most. Sub-steps are sized from the time the operator took
// per entry so far (initialEntryCost before the first: an entry of the
// hash aggregate into Badger), so that the last one ends about on time.
const (
	stepShare        = 4
	minStepTime      = 200 * time.Microsecond
	maxStepTime      = 4 * time.Millisecond
	initialEntryCost = time.Microsecond
	subStepEntries   = 1024
)

// pendingSnapshot is the snapshot a task's operators began at a barrier
// and have not finished writing.
type pendingSnapshot struct {
	epoch uint64
	ops   []int         // chain positions of the operators with entries left, in chain order
	steps time.Duration // the time its steps took so far
	// since is when the barrier started a writer goroutine (of one of
	// ops), zero if none: the time until the task finishes that
	// operator's snapshot counts as the snapshot's deferred time.
	since time.Time
	// perEntry is the estimated time a step takes per entry written.
	perEntry time.Duration
}

// deferring reports whether a snapshot is pending.
func (s *taskState) deferring() bool { return s != nil && len(s.pend.ops) > 0 }

// background returns, when the first operator with entries left writes
// them on a goroutine of its own (exec.BackgroundSnapshotter) that is not
// done, the channel closed when it is; nil otherwise. Steps then have
// nothing to do: the task waits for its input or for that channel.
func (s *taskState) background() <-chan struct{} {
	if !s.deferring() {
		return nil
	}
	b, ok := s.deferred[s.pend.ops[0]].(exec.BackgroundSnapshotter)
	if !ok {
		return nil
	}
	ch := b.SnapshotBusy()
	select {
	case <-ch:
		return nil
	default:
		return ch
	}
}

// step has the first operator with entries left write about target's
// worth of them, in sub-steps, and reports whether the snapshot is
// finished.
func (s *taskState) step(ctx context.Context, target time.Duration) (finished bool, err error) {
	p := &s.pend
	i := p.ops[0]
	if s.background() != nil {
		return false, nil
	}
	if b, ok := s.deferred[i].(exec.BackgroundSnapshotter); ok && b.SnapshotBusy() != nil && !p.since.IsZero() {
		// Its writer is done, and this step finishes the snapshot.
		p.steps += time.Since(p.since)
		p.since = time.Time{}
	}
	start := time.Now()
	var done bool
	for left := target; ; {
		budget := int(min(max(left/p.perEntry, 1), subStepEntries))
		sub := time.Now()
		done, err = s.deferred[i].SnapshotStep(ctx, budget)
		now := time.Now()
		// A step that finished a snapshot written in the background
		// counts the writer's entries: not a measure of a step's.
		if n := s.wrote(s.writers[i]); n > 0 && n <= int64(budget) {
			p.perEntry = max((3*p.perEntry+now.Sub(sub)/time.Duration(n))/4, time.Nanosecond)
		}
		if left = target - now.Sub(start); err != nil || done || left <= 0 || ctx.Err() != nil {
			break // a job stopping: the callers look at ctx between steps
		}
	}
	if ferr := s.writers[i].flush(); err == nil {
		err = ferr
	}
	p.steps += time.Since(start)
	if err != nil {
		return false, fmt.Errorf("snapshotting operator %d for checkpoint %d: %w", i, p.epoch, err)
	}
	if done {
		p.ops = p.ops[1:]
	}
	return len(p.ops) == 0, nil
}

// snapshotSteps writes part of the task's pending snapshot, if any: one
// step sized by the task's last chunk, or, while idle reports that no
// input waits (nil: input may wait), steps of maxStepTime one after
// another.
func (t *task) snapshotSteps(ctx context.Context, idle func() bool) error {
	for t.state.deferring() {
		if err := ctx.Err(); err != nil {
			return err // the job is stopping
		}
		if t.state.background() != nil {
			return nil // the task waits for its input or the writer (runInbox)
		}
		quiet := idle != nil && idle()
		target := maxStepTime
		if !quiet {
			target = min(max(t.lastChunk/stepShare, minStepTime), maxStepTime)
		}
		if err := t.snapshotStep(ctx, target); err != nil || !quiet {
			return err
		}
	}
	return nil
}

// snapshotStep writes about target's worth of the task's pending
// snapshot, and reports it finished if it is.
func (t *task) snapshotStep(ctx context.Context, target time.Duration) error {
	finished, err := t.state.step(ctx, target)
	if finished {
		t.snapshotFinished()
	}
	return err
}

// finishSnapshot writes all that remains of the task's pending snapshot,
// if any, before the task handles a barrier (then the input waits for it,
// and the time counts as the barrier's synchronous part) or the end of
// its input.
func (t *task) finishSnapshot(ctx context.Context, barrier bool) error {
	s := t.state
	if !s.deferring() {
		return nil
	}
	start := time.Now()
	for s.deferring() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if ch := s.background(); ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if _, err := s.step(ctx, time.Duration(math.MaxInt64)); err != nil {
			return err
		}
	}
	if barrier {
		s.syncTime += time.Since(start)
	}
	t.snapshotFinished()
	return nil
}

// snapshotFinished reports the task's pending snapshot written.
func (t *task) snapshotFinished() {
	p := &t.state.pend
	t.job.snapshotFinished(p.epoch, p.steps)
	p.epoch, p.steps, p.ops, p.since = 0, 0, p.ops[:0], time.Time{}
}

// snapshotBegun counts a task's snapshot left pending at a barrier; the
// task calls it before it forwards the barrier.
func (j *Job) snapshotBegun() {
	j.mu.Lock()
	j.deferred++
	j.mu.Unlock()
}

// snapshotFinished records that a task finished writing the snapshot of
// epoch, its steps having taken steps, and wakes a checkpoint waiting for
// it.
func (j *Job) snapshotFinished(epoch uint64, steps time.Duration) {
	j.noteSteps(epoch, steps)
	j.mu.Lock()
	j.deferred--
	j.signalLocked()
	j.mu.Unlock()
}
