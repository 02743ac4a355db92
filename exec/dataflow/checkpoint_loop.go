package dataflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/eddysql/eddy/exec"
)

// Periodic checkpoints. A job started with a state store and a checkpoint
// interval runs a coordinator goroutine that takes a checkpoint every
// interval, numbered on from the store's last committed epoch, and keeps
// the outcome of the recent ones for SHOW CHECKPOINTS and EXPLAIN ANALYZE.

// CheckpointStat is the outcome of one checkpoint.
type CheckpointStat struct {
	Epoch    uint64
	Start    time.Time
	Duration time.Duration // from the barriers' request to the commit, or to the failure
	// Sync is the synchronous part: the longest time one task's input
	// waited at the barrier for its operators' snapshots — Snapshot, or
	// BeginSnapshot of an exec.DeferredSnapshotter (and finishing the
	// previous epoch's snapshot, if still pending).
	Sync time.Duration
	// Deferred is the longest time one task spent writing, in steps
	// between chunks after the barrier went on, the entries its operators'
	// BeginSnapshot left pending. Its input waits during a step, but a
	// step at a time (a few ms at most), not for all of them. An operator
	// that writes them on a goroutine of its own
	// (exec.BackgroundSnapshotter) adds the time from the barrier until
	// the task finished its snapshot, the writer done; its input does not
	// wait for that at all.
	Deferred time.Duration
	// Alignment is the longest time a task with several senders held
	// back the input of those whose barrier had arrived, from the first
	// sender's barrier to the last's.
	Alignment time.Duration
	Bytes     int64 // of the state entries the operators wrote (keys and values)
	// StateBytes is the size of the job's whole committed state after
	// the checkpoint (storage.StateStore.Bytes); 0 if the checkpoint
	// failed, -1 if the store could not tell.
	StateBytes int64
	Err        error // nil when the epoch committed
}

// barrierTiming is the Sync, Deferred and Alignment of a checkpoint's
// epoch, as the tasks that handled its barrier report them.
type barrierTiming struct {
	epoch                 uint64
	sync, steps, aligning time.Duration
}

// noteBarrier records that a task handled the barrier of epoch, its
// operators snapshotting for sync after it was aligned for aligning. A
// later epoch starts afresh; a report of an earlier one is too late.
func (j *Job) noteBarrier(epoch uint64, sync, aligning time.Duration) {
	j.timingMu.Lock()
	defer j.timingMu.Unlock()
	switch {
	case epoch > j.timing.epoch:
		j.timing = barrierTiming{epoch: epoch, sync: sync, aligning: aligning}
	case epoch == j.timing.epoch:
		j.timing.sync = max(j.timing.sync, sync)
		j.timing.aligning = max(j.timing.aligning, aligning)
	}
}

// noteSteps records that a task's steps of its snapshot of epoch took
// steps in all. A report of an epoch no task has reported the barrier of
// yet, or of one before the latest, is ignored.
func (j *Job) noteSteps(epoch uint64, steps time.Duration) {
	j.timingMu.Lock()
	defer j.timingMu.Unlock()
	if epoch == j.timing.epoch {
		j.timing.steps = max(j.timing.steps, steps)
	}
}

// timingOf returns the timing of epoch's barrier (zero if no task
// reported it).
func (j *Job) timingOf(epoch uint64) barrierTiming {
	j.timingMu.Lock()
	defer j.timingMu.Unlock()
	if j.timing.epoch != epoch {
		return barrierTiming{}
	}
	return j.timing
}

// RestoredBytes returns the bytes of state entries the job's operators
// read when it resumed from a checkpoint.
func (j *Job) RestoredBytes() int64 { return j.stateRead.Load() }

// keptCheckpoints is how many recent checkpoints a job remembers.
const keptCheckpoints = 64

// Checkpoints returns the outcomes of the job's recent checkpoints, the
// oldest first.
func (j *Job) Checkpoints() []CheckpointStat {
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	return append([]CheckpointStat(nil), j.ckptStats...)
}

// CheckpointCounts returns how many checkpoints the job has taken, and
// how many of them failed, since it started (Checkpoints keeps only the
// recent ones).
func (j *Job) CheckpointCounts() (taken, failed int) {
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	return j.ckptTaken, j.ckptFailed
}

// CheckpointTotals returns how many checkpoints the job has taken since
// it started, how many of them failed, and their durations summed: a
// summary's count and sum, read together.
func (j *Job) CheckpointTotals() (taken, failed int, total time.Duration) {
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	return j.ckptTaken, j.ckptFailed, j.ckptTime
}

// CheckpointNext takes the checkpoint numbered after the last one taken
// (or, first, after the store's last committed epoch) and returns its
// epoch. Checkpoints are taken one at a time.
//
// A job whose input ended takes its final checkpoint instead (see
// checkpoint_final.go): CheckpointNext then waits for it and returns its
// outcome.
func (j *Job) CheckpointNext(ctx context.Context) (uint64, error) {
	epoch, err := j.checkpointNext(ctx)
	if errors.Is(err, errFinishing) {
		return j.awaitFinal(ctx)
	}
	return epoch, err
}

// checkpointNext is CheckpointNext without waiting for a final checkpoint
// (the coordinator's: the final checkpoint waits for the coordinator).
func (j *Job) checkpointNext(ctx context.Context) (uint64, error) {
	if j.store == nil {
		return 0, fmt.Errorf("dataflow: job %s has no state store", j.name)
	}
	// The epoch is chosen once the checkpoints before it are done: two
	// callers at once (the coordinator, FLUSH) take two epochs.
	j.ckptRun.Lock()
	defer j.ckptRun.Unlock()
	j.ckptMu.Lock()
	epoch := j.lastEpoch + 1
	j.ckptMu.Unlock()
	return epoch, j.takeCheckpoint(ctx, epoch, func() error { return j.checkpoint(ctx, epoch) })
}

// takeCheckpoint runs checkpoint epoch for Checkpoint and records its
// outcome; the caller holds j.ckptRun.
func (j *Job) takeCheckpoint(ctx context.Context, epoch uint64, take func() error) error {
	start, before := time.Now(), j.stateWritten.Load()
	err := take()
	if errors.Is(err, errFinishing) {
		return err // not a checkpoint: the final one follows
	}
	stat := CheckpointStat{Epoch: epoch, Start: start, Duration: time.Since(start),
		Bytes: j.stateWritten.Load() - before, Err: err}
	timing := j.timingOf(epoch)
	stat.Sync, stat.Deferred, stat.Alignment = timing.sync, timing.steps, timing.aligning
	if err == nil {
		// Sized once by reading every key, then kept by the commits.
		if size, serr := j.store.Bytes(); serr == nil {
			stat.StateBytes = size
		} else {
			stat.StateBytes = -1
		}
	}
	j.ckptMu.Lock()
	defer j.ckptMu.Unlock()
	j.lastEpoch = max(j.lastEpoch, epoch)
	j.ckptStats = append(j.ckptStats, stat)
	j.ckptTaken++
	j.ckptTime += stat.Duration
	if err != nil {
		j.ckptFailed++
	}
	if n := len(j.ckptStats); n > keptCheckpoints {
		j.ckptStats = append(j.ckptStats[:0], j.ckptStats[n-keptCheckpoints:]...)
	}
	return err
}

// ticked waits for the next tick of c and reports whether it came before
// the job's tasks ended and ctx was done.
func (j *Job) ticked(ctx context.Context, c <-chan time.Time) bool {
	select {
	case <-ctx.Done():
		return false
	case <-j.tasksDone:
		return false
	case <-c:
		return true
	}
}

// checkpointLoop takes a checkpoint every interval until the job's tasks
// have ended or ctx is done. A failed checkpoint is reported through
// onWarning while the job runs on (its writes stay buffered and the next
// epoch commits them); one the job's end interrupted ends the loop.
func (j *Job) checkpointLoop(ctx context.Context, every time.Duration, onWarning func(string)) {
	defer j.coord.Done()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for j.ticked(ctx, tick.C) {
		epoch, err := j.checkpointNext(ctx)
		if err == nil {
			continue
		}
		if state, _ := j.State(); state != JobRunning || ctx.Err() != nil {
			return
		}
		if onWarning != nil {
			onWarning(fmt.Sprintf("checkpoint %d of %s failed: %v", epoch, j.name, err))
		}
	}
}

// resumable returns nil when every operator of the job is exec.Stateful or
// exec.Stateless and every source exec.Positioned (a view subscription
// never is), and otherwise an error naming the first that is not.
func (j *Job) resumable() error {
	for si, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.source != nil {
				if _, ok := t.source.(exec.Positioned); !ok {
					return fmt.Errorf("stage %d's source does not record its position", si)
				}
			}
			for i, op := range t.chain.ops {
				switch op.(type) {
				case exec.Stateful, exec.Stateless:
				default:
					return fmt.Errorf("%s (stage %d) keeps state it cannot snapshot", sr.spec.Ops[i].Name, si)
				}
			}
		}
	}
	return nil
}

// Resumable returns nil when the job can resume from a checkpoint, and
// otherwise why not (see exec.Stateless). A job that is not resumable
// takes no periodic checkpoints and cannot be started with Restore.
func (j *Job) Resumable() error { return j.resumeErr }
