package dataflow

import (
	"context"

	"github.com/eddysql/eddy/exec"
)

// The order of a restore. Each source task of a job resumed from a
// checkpoint seeks its source to the recorded position before its own
// operators restore. When every source then finds nothing after its
// position (exec.Exhausted: a bounded input read to its end, a log with
// nothing new), the job restores its sink stage's operators first (a
// view's rows) and the other tasks' once those are back: as soon as its
// sink restored, its output is current, with nothing left to catch up
// on. Job.WaitReadable tells the engine when that point is reached, and
// the view can answer while the rest of the state is read back (an
// upstream operator's state only matters to input that has not come
// yet). The sink goes first as the tasks restoring at once share the
// cores: the view's rows would otherwise come back only at about the end
// of the whole restore. Otherwise (input to catch up on) every task
// restores at once, the job's output being current only once it caught
// up.

// restoreProgress is where a job's restore stands. The job's mu guards
// it.
type restoreProgress struct {
	sinkTasks, sourceTasks int  // tasks that end the job; that record source positions
	sinksRestored          int  // sink tasks whose operators restored
	positioned             int  // source tasks whose sources were positioned
	exhausted              bool // every source positioned so far was exhausted
	sinksDone              chan struct{}
	hold                   chan struct{} // HoldRestores's, when set as the job started
}

// initRestoreOrder counts the sink and source tasks of a job that
// restores.
func (j *Job) initRestoreOrder() {
	j.rp = restoreProgress{exhausted: true, sinksDone: make(chan struct{})}
	if h := restoreHold.Load(); h != nil {
		j.rp.hold = *h
	}
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.isSink {
				j.rp.sinkTasks++
			}
			if t.srcPos != nil {
				j.rp.sourceTasks++
			}
		}
	}
	if j.rp.sinkTasks == 0 {
		close(j.rp.sinksDone)
	}
}

// sourcePositioned records that a source task sought its source to the
// checkpoint's position, and whether it found anything left to read.
func (j *Job) sourcePositioned(src exec.Source) {
	ex, ok := src.(exec.Exhausted)
	exhausted := ok && ex.Exhausted()
	j.mu.Lock()
	j.rp.positioned++
	j.rp.exhausted = j.rp.exhausted && exhausted
	j.signalLocked()
	j.mu.Unlock()
}

// sinkRestored records that a sink task's operators restored their
// state.
func (j *Job) sinkRestored() {
	j.mu.Lock()
	j.rp.sinksRestored++
	if j.rp.sinksRestored == j.rp.sinkTasks {
		close(j.rp.sinksDone)
	}
	j.signalLocked()
	j.mu.Unlock()
}

// awaitTurn blocks a task that is not a sink until it may restore: once
// every source task has positioned its source, at once if some source has
// input left (the job catches up before its output is current, and its
// tasks restore best all at once), else once the sink tasks restored. It
// returns early when ctx is done.
func (j *Job) awaitTurn(ctx context.Context) error {
	if err := j.waitFor(ctx, func() bool { return j.rp.positioned == j.rp.sourceTasks || j.state != JobRunning }); err != nil {
		return err
	}
	j.mu.Lock()
	exhausted := j.rp.exhausted
	j.mu.Unlock()
	if exhausted {
		select {
		case <-j.rp.sinksDone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if j.rp.hold != nil {
		select {
		case <-j.rp.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// WaitReadable blocks, for a job started with Restore, until its sink
// tasks have restored their operators and its source tasks positioned
// their sources, every task opened, the job ended, or ctx is done. It
// reports whether the sink's output is then current: the job is running,
// every source was positioned with nothing left after its position
// (exec.Exhausted), and the sink restored. The other tasks may still be
// restoring; they process whatever comes later. A job started without
// Restore reports false once its tasks opened.
func (j *Job) WaitReadable(ctx context.Context) (bool, error) {
	err := j.waitFor(ctx, func() bool {
		return j.opened == j.tasks || j.state != JobRunning ||
			j.restore && j.rp.sinksRestored == j.rp.sinkTasks && j.rp.positioned == j.rp.sourceTasks
	})
	if err != nil {
		return false, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	ok := j.restore && j.state == JobRunning && j.rp.exhausted &&
		j.rp.sinksRestored == j.rp.sinkTasks && j.rp.positioned == j.rp.sourceTasks
	return ok, nil
}

// Opened reports whether every task of the job has opened: restored its
// state, if the job restores, and opened its source.
func (j *Job) Opened() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.opened == j.tasks
}
