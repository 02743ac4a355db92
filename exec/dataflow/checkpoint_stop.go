package dataflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddysql/eddy/exec"
)

// Stopping at a checkpoint (a savepoint, as Flink's stop-with-savepoint).
// StopAtCheckpoint takes a checkpoint as Checkpoint does, except that the
// job stops at its barrier: a source task sends the barrier after the rows
// it has emitted and reads nothing more, and every other task, once it has
// handled the aligned barrier (its operators snapshotted it and the barrier
// went on downstream), finishes a snapshot it began there and then waits
// for the job to be stopped, handling nothing else — no chunk, no marker,
// no processing-time timer. So when the epoch commits, every operator's
// state, every source's position and every output (a view's rows, what a
// committer published) are exactly those of the cut: nothing after the
// barrier happened anywhere. A job started with Restore on the same store
// — at the same parallelism or another, whose stages own other key groups
// (rescale.go) — goes on from there, neither losing nor repeating a row.

// errStopped is returned up a task's loop once it has handled the barrier
// the job stops at; the task then parks (park).
var errStopped = errors.New("dataflow: stopped at the checkpoint's barrier")

// stopsAt reports whether m is the barrier the job stops at.
func (j *Job) stopsAt(m exec.Control) bool {
	return m.Kind == exec.Barrier && m.Epoch == j.stopAt.Load()
}

// StopAtCheckpoint takes a checkpoint at which the job stops, waits for
// its epoch to commit (and the job's committers to publish it), stops
// the job as Stop does, and returns the epoch. A job whose every input
// ended takes its final checkpoint instead, whose epoch it returns.
//
// On an error the job is stopped too — its tasks may have stopped at the
// barrier, and could not go on — and the store's last committed
// checkpoint is an earlier one: the caller resumes from that one.
func (j *Job) StopAtCheckpoint(ctx context.Context) (uint64, error) {
	if j.store == nil {
		j.Stop()
		return 0, fmt.Errorf("dataflow: job %s has no state store", j.name)
	}
	if j.resumeErr != nil {
		j.Stop()
		return 0, fmt.Errorf("dataflow: job %s cannot stop at a checkpoint: %w", j.name, j.resumeErr)
	}
	j.ckptRun.Lock()
	j.ckptMu.Lock()
	epoch := j.lastEpoch + 1
	j.ckptMu.Unlock()
	j.stopAt.Store(epoch)
	err := j.takeCheckpoint(ctx, epoch, func() error { return j.checkpoint(ctx, epoch) })
	j.ckptRun.Unlock()
	if errors.Is(err, errFinishing) {
		epoch, err = j.awaitFinal(ctx)
	}
	j.Stop()
	if err != nil {
		return 0, err
	}
	return epoch, nil
}

// park holds a task that stopped at the barrier of StopAtCheckpoint until
// the job is stopped. It first writes out the snapshot its operators
// began at the barrier, which the epoch's commit waits for, and releases
// what it held back behind the barrier: that input belongs to the next
// epoch, which a resumed job reads again.
func (t *task) park(ctx context.Context) error {
	for _, m := range t.held {
		m.release()
	}
	t.held = nil
	if err := t.finishSnapshot(ctx, false); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}
