package dataflow

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/eddysql/eddy/exec"
)

// The final checkpoint. A job whose every input ends (bounded sources)
// stops taking checkpoints once its tasks have returned, so without one
// more a restart would resume from the last periodic checkpoint and read
// the tail of its inputs again (or, with none, all of them). So a task of
// a checkpointing job that reaches its end of input does not close its
// operators: it returns with them open (task.finalDue). Once every task
// has returned and no checkpoint is in flight, the job has each such task
// snapshot its stateful operators into the store — not before, since the
// store may still be committing a periodic checkpoint whose barrier the
// task has passed, which must not see state from after it — writes the
// sources' end positions and commits the next epoch; then it closes the
// tasks. The snapshots go straight into the store, as a periodic one's
// do, and the tasks write theirs in parallel. When every source is
// finite for good, the state that only serves to process more input is
// left out (checkpoint_finished.go).
//
// Only a job with no exec.Committer takes it: a committer (a two-phase
// sink, a stream writer) publishes at its end of input what it has, and a
// checkpoint after that would stage its output again.

// finalCheckpoints reports whether the job takes a final checkpoint.
func (j *Job) finalCheckpoints() bool {
	if j.store == nil || j.resumeErr != nil || !j.periodic {
		return false
	}
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			for _, op := range t.chain.ops {
				if _, ok := op.(exec.Committer); ok {
					return false
				}
			}
		}
	}
	return true
}

// errFinishing is what a checkpoint requested of a job whose input ended
// returns under the lock of checkpoints: the caller then waits for the
// final checkpoint (awaitFinal) instead.
var errFinishing = errors.New("dataflow: the job's input ended; its final checkpoint follows")

// awaitFinal waits until the job is done and returns the epoch and the
// outcome of its final checkpoint.
func (j *Job) awaitFinal(ctx context.Context) (uint64, error) {
	select {
	case <-j.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	if !j.finalTaken {
		return 0, fmt.Errorf("dataflow: job %s ended before its final checkpoint", j.name)
	}
	return j.finalEpoch, j.finalErr
}

// markFinal marks the task, which reached its end of input, for the
// final checkpoint: the job snapshots its operators and closes it
// (finalCheckpoint, closeFinal) once every task has returned.
func (t *task) markFinal() {
	t.finalDue = t.job.final && t.state != nil
}

// writeFinal writes the task's final snapshot — all the state of its
// stateful operators that the last periodic checkpoint did not write —
// into the store, for checkpoint epoch; when the job's input ended for
// good (finite), not the state of the operators that drop it at the end
// (checkpoint_finished.go). The job calls it once the task has returned,
// so the operators are not running.
func (t *task) writeFinal(ctx context.Context, epoch uint64, finite bool) error {
	s := t.state
	for i, op := range s.ops {
		if op == nil || (finite && dropsAtEnd(op)) {
			continue
		}
		w := s.writers[i]
		err := op.Snapshot(ctx, epoch, w)
		if ferr := w.flush(); err == nil {
			err = ferr
		}
		s.wrote(w)
		if err != nil {
			return fmt.Errorf("%s: snapshotting operator %d at the end of input: %w", t.name, i, err)
		}
	}
	return nil
}

// finalTasks returns the tasks whose final snapshot is due.
func (j *Job) finalTasks() []*task {
	var due []*task
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.finalDue {
				due = append(due, t)
			}
		}
	}
	return due
}

// writeFinals writes the final snapshots of the tasks due, as many at a
// time as there are processors: each writes its own operators' entries,
// and tables take concurrent writes.
func (j *Job) writeFinals(ctx context.Context, epoch uint64, finite bool) error {
	due := j.finalTasks()
	errs := make([]error, len(due))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(due)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(due); i = int(next.Add(1) - 1) {
				t := due[i]
				errs[i] = t.runRecovered(ctx, func(ctx context.Context) error { return t.writeFinal(ctx, epoch, finite) })
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeFinal closes the tasks that waited for the final checkpoint,
// whether or not it was taken.
func (j *Job) closeFinal(ctx context.Context) {
	for _, t := range j.finalTasks() {
		t.finalDue = false
		if err := t.runRecovered(ctx, func(context.Context) error { return t.close() }); err != nil {
			j.fail(fmt.Errorf("%s: %w", t.name, err))
		}
	}
}

// finalCheckpoint commits the job's final checkpoint once every task has
// returned, the job finished and its coordinator stopped.
func (j *Job) finalCheckpoint(ctx context.Context) error {
	j.ckptRun.Lock()
	defer j.ckptRun.Unlock()
	j.ckptMu.Lock()
	epoch := j.lastEpoch + 1
	j.ckptMu.Unlock()
	finite := j.finiteInput()
	err := j.takeCheckpoint(ctx, epoch, func() error {
		if err := j.writeFinals(ctx, epoch, finite); err != nil {
			return err
		}
		if finite {
			if err := j.markFinished(epoch); err != nil {
				return err
			}
		}
		for _, sr := range j.stages {
			for _, t := range sr.tasks {
				if t.srcPos != nil {
					// Every source ended: its end, unless a checkpoint
					// wrote it already.
					t.mu.Lock()
					end := t.endPos
					t.endPos = endWritten
					t.mu.Unlock()
					if len(end) > 0 {
						if err := t.srcPos.table.Put(t.srcPos.key, end); err != nil {
							return err
						}
					}
				}
			}
		}
		return j.store.Commit(ctx, epoch)
	})
	j.ckptMu.Lock()
	j.finalTaken, j.finalEpoch, j.finalErr = true, epoch, err
	j.ckptMu.Unlock()
	return err
}

// TakesFinalCheckpoint reports whether the job commits a final checkpoint
// when its input ends; CheckpointNext on such a job that has finished
// waits for it.
func (j *Job) TakesFinalCheckpoint() bool { return j.final }
