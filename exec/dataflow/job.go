package dataflow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/storage"
)

// JobState is the lifecycle state of a job.
type JobState uint8

// The job states.
const (
	JobRunning   JobState = iota + 1
	JobFinished           // every input ended and the sink saw end of input
	JobFailed             // an operator failed; Err says why
	JobCancelled          // stopped by Stop or its context
)

// String returns the state's name.
func (s JobState) String() string {
	return [...]string{"", "running", "finished", "failed", "cancelled"}[s]
}

// JobOptions configure a job.
type JobOptions struct {
	Name  string
	Alloc memory.Allocator
	// OnWarning receives warnings from the job's operators and sources.
	OnWarning func(msg string)
	// BufferBytes is the job's buffer budget: the memory the batches queued
	// between its stages may take (0: DefaultBufferBytes). Queued batches
	// get queuedShare percent of it, split evenly over the stage
	// instances' inboxes; operator state is not counted.
	BufferBytes int64
	// Coalesce lets hash exchanges hold small parts back to send them
	// together (see coalesceRows): fewer, larger batches, and an
	// aggregate downstream folds the held rows' changes of a group into
	// one. The integrated result is the same; the changelog is coarser and
	// depends on timing, so jobs whose every change is observed (push
	// queries, file sinks) leave it off.
	Coalesce bool
	// StateBudget, if set, bounds the state of this job's operators
	// together with every other job sharing it: an operator whose state
	// growth would pass it fails the job with a *StateLimitError.
	StateBudget *StateBudget
	// State, if set, is the job's state store: Checkpoint snapshots the
	// stateful operators into it (see exec.Stateful).
	State storage.StateStore
	// Restore makes the stateful operators restore the state of the
	// store's last committed checkpoint before they see any input.
	Restore bool
	// Relayout says that checkpoint was written by a plan that placed
	// some state otherwise (exec.Env.Relayout).
	Relayout bool
	// Handoff, with Restore, holds the operator instances of the job that
	// stopped at the checkpoint restored (Job.StopAndHandOver): the job's
	// instances take over their state rather than read all of it from
	// the store (handoff.go). StartJob takes it over, whatever happens.
	Handoff *Handoff
	// CheckpointInterval, when positive and State is set, makes the job
	// take a checkpoint every interval, numbered on from the store's last
	// committed epoch, if it is resumable (Job.Resumable).
	CheckpointInterval time.Duration
	// Shed, if set, makes the job drop rows at its sources when its
	// input outruns it (shed.go).
	Shed *ShedSpec
	// PolicyInterval, when positive, makes the job sample its operators'
	// counters every interval, keeping the last interval's figures
	// (LastInterval, sampler.go).
	PolicyInterval time.Duration
	// LatencyInterval, when positive and PolicyInterval is too, makes
	// every source send a latency marker every interval, and the job
	// summarize their latencies at the sink per policy interval
	// (latency.go). With none, no marker is sent.
	LatencyInterval time.Duration
	// WatermarkAlignment, when positive, holds back a source whose
	// watermark is more than this ahead of the lowest among the job's
	// sources with event time that have data to read (wmalign.go).
	WatermarkAlignment time.Duration
	// SplitAlignment, when positive and WatermarkAlignment is not, holds
	// back an instance of a parallel source whose splits share their event
	// time (WatermarkSpec.SplitsShareTime) whose watermark is more than
	// this ahead of the lowest among the instances of its scan with data to
	// read: an alignment group per such scan (wmalign.go).
	SplitAlignment time.Duration
	// onMarker, if set, sees every latency marker that reaches the sink,
	// from the sink's task (tests).
	onMarker func(exec.Control)
}

// Job is a running dataflow. It owns one goroutine per stage instance and
// waits for all of them.
type Job struct {
	name   string
	stages []*stageRun
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	state    JobState
	err      error
	flushed  uint64        // every flush id <= flushed has reached the sink
	opened   int           // tasks whose operators and source have opened
	tasks    int           // tasks in all
	progress chan struct{} // closed and replaced whenever flushed or state changes
	done     chan struct{}
	running  atomic.Int32
	started  time.Time
	ended    time.Time // set when every goroutine has exited
	budget   int64     // the buffer budget, bytes
	account  *jobState // the account with opts.StateBudget, if any
	store    storage.StateStore
	restore  bool
	shed     *shedControl // load shedding, if the job sheds (shed.go)
	periodic bool         // the job checkpoints every CheckpointInterval
	final    bool         // and takes a final checkpoint (checkpoint_final.go)
	// restoredEpoch is the store's last committed epoch when the job
	// started: the checkpoint a job started with Restore restores.
	restoredEpoch uint64
	// restoredFinished says that checkpoint is the final one of a job
	// whose input ended for good (checkpoint_finished.go), or
	// finishedErr why its mark does not read back.
	restoredFinished bool
	finishedErr      error
	rp               restoreProgress // the order of the restore (restore_order.go)
	barrier          uint64          // every barrier <= barrier has reached the sink
	sinks            []sinkProgress  // by instance of the sink stage (sinkControl)
	// deferred counts the tasks whose operators began a snapshot at a
	// barrier and have not finished writing it (checkpoint_deferred.go).
	deferred int

	ckptRun   sync.Mutex // held while a checkpoint runs: one at a time
	ckptMu    sync.Mutex // guards lastEpoch, ckptStats and the counts
	lastEpoch uint64     // the highest epoch a checkpoint was taken for
	ckptStats []CheckpointStat
	// finalTaken says the final checkpoint was taken, at finalEpoch,
	// with the outcome finalErr.
	finalTaken bool
	finalEpoch uint64
	finalErr   error
	// ckptTaken and ckptFailed count the checkpoints taken and failed.
	ckptTaken, ckptFailed int
	// ckptTime is the duration of every checkpoint taken, summed.
	ckptTime  time.Duration
	timingMu  sync.Mutex     // guards timing
	timing    barrierTiming  // of the latest barrier the tasks report
	coord     sync.WaitGroup // the checkpoint coordinator
	resumeErr error          // why the job cannot resume from a checkpoint, if it cannot
	// stateWritten and stateRead count the bytes of state entries the
	// job's snapshots wrote and its restore read.
	stateWritten, stateRead atomic.Int64
	// restored counts the bytes its restore read per table and key group
	// (nil unless the job restores).
	restored *restoreCounts
	// stopAt is the epoch of the barrier every task stops at
	// (StopAtCheckpoint); 0: none.
	stopAt atomic.Uint64
	// handoff, when set, receives the instances of the operators that can
	// adopt key groups once their task stopped at stopAt
	// (StopAndHandOver).
	handoff   atomic.Pointer[Handoff]
	tasksDone chan struct{} // closed when every task has exited
	// rates keeps the last policy interval, lat the latencies of the
	// markers that reached the sink since (sampler.go, latency.go).
	rates    sampler
	lat      latencyLog
	onMarker func(exec.Control)
	// wmAlign is the alignment group of the job's sources with event
	// time, when JobOptions.WatermarkAlignment asks for one and there
	// are two or more.
	wmAlign *sourceAlignment
	// splitAlign are the alignment groups of the scans whose splits share
	// their event time, by stage, when JobOptions.SplitAlignment asks for
	// them and wmAlign does not align every source.
	splitAlign map[int]*sourceAlignment
}

// stageRun is a stage's runtime: its instances' inboxes, tasks and metrics.
type stageRun struct {
	spec    StageSpec
	inboxes []*inbox
	senders int // upstream instances feeding each instance
	tasks   []*task
	// consumers are the stage inputs its output feeds, in the order of
	// the stages: one, or several for a sub-plan the query shares.
	consumers []consumerRef
	shared    exec.Shared // what the stage's instances share (exec.Env.Shared)
}

// consumerRef names the input of a later stage that a stage's output
// feeds: found once per job, not by every task scanning every stage (a
// union of thousands of sources has thousands of each).
type consumerRef struct {
	stage, input int
}

// StartJob starts the dataflow g.
func StartJob(ctx context.Context, g GraphSpec, opts JobOptions) (*Job, error) {
	defer opts.Handoff.Close() // what no task took
	if err := g.validate(); err != nil {
		return nil, err
	}
	if opts.Alloc == nil {
		opts.Alloc = memory.DefaultAllocator
	}
	budget := opts.BufferBytes
	if budget <= 0 {
		budget = DefaultBufferBytes
	}
	nInboxes := 0
	for _, s := range g.Stages {
		if s.Source == nil {
			nInboxes += s.Parallelism
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{name: opts.Name, cancel: cancel, state: JobRunning,
		progress: make(chan struct{}), done: make(chan struct{}), tasksDone: make(chan struct{}),
		started: time.Now(), budget: budget, store: opts.State, restore: opts.Restore && opts.State != nil}
	if opts.Shed != nil {
		j.shed = &shedControl{spec: *opts.Shed}
		if w := opts.Shed.Window; w != nil {
			j.shed.windows = newWindowFates(*w, opts.Shed.Seed)
		}
	}
	if j.store != nil {
		// Number checkpoints on from the last committed one (and restore
		// from it): uncommitted writes, which a job's store has only
		// after a failed commit, are discarded.
		last, err := j.store.Recover(ctx)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("dataflow: reading the last checkpoint of %s: %w", opts.Name, err)
		}
		j.lastEpoch = last
		j.restoredEpoch = last
	}
	if opts.StateBudget != nil {
		j.account = opts.StateBudget.join(j)
	}
	for _, s := range g.Stages {
		sr := &stageRun{spec: s}
		if s.Source == nil {
			sr.inboxes = make([]*inbox, s.Parallelism)
			for i := range sr.inboxes {
				sr.inboxes[i] = newInbox(budget * queuedShare / 100 / int64(nInboxes))
			}
		}
		j.stages = append(j.stages, sr)
	}
	// Number each consumer's senders: all instances of its first input,
	// then of its second, and so on.
	senderBase := make([][]int, len(g.Stages)) // [consumer][input spec] → base
	for ci, s := range g.Stages {
		base := 0
		senderBase[ci] = make([]int, len(s.Inputs))
		for k, in := range s.Inputs {
			senderBase[ci][k] = base
			base += g.Stages[in.From].Parallelism
			if in.From < ci {
				j.stages[in.From].consumers = append(j.stages[in.From].consumers, consumerRef{stage: ci, input: k})
			}
		}
		j.stages[ci].senders = base
	}
	if opts.WatermarkAlignment > 0 {
		n := 0
		for _, s := range g.Stages {
			if s.Source != nil && s.Watermark != nil {
				n += s.Parallelism
			}
		}
		if n > 1 {
			j.wmAlign = newSourceAlignment(opts.WatermarkAlignment)
		}
	}
	if j.wmAlign == nil && opts.SplitAlignment > 0 {
		for si, s := range g.Stages {
			if s.Source != nil && s.Watermark != nil && s.Watermark.SplitsShareTime && s.Parallelism > 1 {
				if j.splitAlign == nil {
					j.splitAlign = map[int]*sourceAlignment{}
				}
				j.splitAlign[si] = newSourceAlignment(opts.SplitAlignment)
			}
		}
	}
	// Create every task before starting any, so a failure to create one
	// leaves nothing running.
	for si, sr := range j.stages {
		for inst := 0; inst < sr.spec.Parallelism; inst++ {
			t, err := j.newTask(si, inst, g, senderBase, opts)
			if err != nil {
				j.closeTasks()
				cancel()
				if j.account != nil {
					opts.StateBudget.leave(j.account)
				}
				return nil, err
			}
			sr.tasks = append(sr.tasks, t)
		}
	}
	for _, sr := range j.stages {
		j.tasks += len(sr.tasks)
	}
	j.sinks = make([]sinkProgress, len(j.stages[len(j.stages)-1].tasks))
	if j.restore {
		j.restored = newRestoreCounts(j.stages)
		j.initRestoreOrder()
		j.restoredFinished, j.finishedErr = readFinished(j.store)
	}
	j.giveOut(opts.Handoff)
	j.resumeErr = j.resumable()
	if j.restore && j.resumeErr != nil {
		j.closeTasks()
		cancel()
		if j.account != nil {
			opts.StateBudget.leave(j.account)
		}
		return nil, fmt.Errorf("dataflow: %s cannot resume from a checkpoint: %w", opts.Name, j.resumeErr)
	}
	j.periodic = opts.CheckpointInterval > 0
	j.final = j.finalCheckpoints()
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			t.env.Resuming = j.restore
			t.env.Relayout = j.restore && opts.Relayout
			t.env.Checkpointing = j.store != nil && j.resumeErr == nil
		}
	}
	j.onMarker = opts.onMarker
	j.startSampler(ctx, opts)
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			j.wg.Add(1)
			j.running.Add(1)
			go j.runTask(ctx, t)
		}
	}
	if j.store != nil && opts.CheckpointInterval > 0 && j.resumeErr == nil {
		j.coord.Add(1)
		go j.checkpointLoop(ctx, opts.CheckpointInterval, opts.OnWarning)
	}
	if j.shed != nil {
		j.coord.Add(1)
		go j.runShedControl(ctx)
	}
	go func() {
		j.wg.Wait()
		// A task drains its inbox as it closes, but an upstream task
		// still running then may queue more before it sees the job end:
		// once every task has returned, nothing sends, and what is left
		// queued is released here.
		for _, sr := range j.stages {
			for _, t := range sr.tasks {
				if t.inbox != nil {
					t.inbox.drain()
				}
			}
		}
		j.mu.Lock()
		j.ended = time.Now()
		if j.state == JobRunning {
			j.state = JobCancelled
		}
		j.signalLocked()
		j.mu.Unlock()
		close(j.tasksDone)
		j.coord.Wait()
		if state, _ := j.State(); state == JobFinished && j.final {
			if err := j.finalCheckpoint(ctx); err != nil && opts.OnWarning != nil && ctx.Err() == nil {
				opts.OnWarning(fmt.Sprintf("the final checkpoint of %s failed: %v", j.name, err))
			}
		}
		j.closeFinal(ctx)
		if j.account != nil {
			opts.StateBudget.leave(j.account) // every task has closed: nothing is charged
		}
		close(j.done)
	}()
	return j, nil
}

func (j *Job) closeTasks() {
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			t.close()
		}
	}
}

func (j *Job) runTask(ctx context.Context, t *task) {
	defer j.wg.Done()
	err := t.runRecovered(ctx, t.run)
	if err == nil && t.finalDue {
		// The job snapshots and closes it (checkpoint_final.go).
		j.running.Add(-1)
		return
	}
	if errors.Is(err, errStopped) {
		err = t.runRecovered(ctx, t.park)
		if errors.Is(err, context.Canceled) {
			// Stopped at the barrier, its snapshot written: its state
			// is the checkpoint's.
			t.handOver()
		}
	}
	if cerr := t.runRecovered(ctx, func(context.Context) error { return t.close() }); err == nil {
		err = cerr
	}
	j.running.Add(-1)
	if err != nil && !errors.Is(err, context.Canceled) {
		j.fail(fmt.Errorf("%s: %w", t.name, err))
	}
}

// ErrInternal marks a query stopped by a bug in eddy (a panic in one of its
// tasks) rather than by its data.
var ErrInternal = errors.New("internal error")

// runRecovered runs f (the task's run, then its close), turning a panic —
// a broken invariant in an operator — into an error that fails this job
// (with the stack, for the bug report) instead of the whole process.
func (t *task) runRecovered(ctx context.Context, f func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v\n%s", ErrInternal, r, debug.Stack())
		}
	}()
	return f(ctx)
}

// fail records the job's first error and stops every task.
func (j *Job) fail(err error) {
	j.mu.Lock()
	if j.state == JobRunning {
		j.state, j.err = JobFailed, err
		j.signalLocked()
	}
	j.mu.Unlock()
	j.cancel()
}

func (j *Job) signalLocked() {
	close(j.progress)
	j.progress = make(chan struct{})
}

// sinkControl is called by the sink stage after its chain handled an aligned
// control message.
func (j *Job) sinkControl(inst int, m exec.Control) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for len(j.sinks) <= inst { // a job put together by hand (tests)
		j.sinks = append(j.sinks, sinkProgress{})
	}
	at := &j.sinks[inst]
	switch m.Kind {
	case exec.Flush:
		at.flushed = max(at.flushed, m.FlushID)
		if f := j.sinksLeast(func(s sinkProgress) uint64 { return s.flushed }); f > j.flushed {
			j.flushed = f
			j.signalLocked()
		}
	case exec.Barrier:
		at.barrier = max(at.barrier, m.Epoch)
		if b := j.sinksLeast(func(s sinkProgress) uint64 { return s.barrier }); b > j.barrier {
			j.barrier = b
			j.signalLocked()
		}
	case exec.EndOfInput:
		at.ended = true
		if j.state == JobRunning && j.sinksLeast(func(s sinkProgress) uint64 { return boolUint(s.ended) }) == 1 {
			j.state = JobFinished
			j.signalLocked()
		}
	}
}

// sinkProgress is what control messages one instance of the sink stage
// has seen: a marker or the end of input has reached the sink once it
// reached every instance.
type sinkProgress struct {
	flushed, barrier uint64
	ended            bool
}

// sinksLeast returns the least of f over the sink stage's instances. The
// caller holds j.mu.
func (j *Job) sinksLeast(f func(sinkProgress) uint64) uint64 {
	least := uint64(math.MaxUint64)
	for _, s := range j.sinks {
		least = min(least, f(s))
	}
	return least
}

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Name returns the job's name.
func (j *Job) Name() string { return j.name }

// State returns the job's state and, when it failed, its error.
func (j *Job) State() (JobState, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state, j.err
}

// RequestFlush asks every source of the job to send flush marker id after
// the rows it has ingested so far (bounded sources: after their last row).
func (j *Job) RequestFlush(id uint64) {
	for _, sr := range j.stages {
		for _, t := range sr.tasks {
			if t.source != nil {
				t.requestFlush(id)
			}
		}
	}
}

// WaitFlushed blocks until flush id reached the sink, the job ended (and
// its goroutines exited, so its state is released), or ctx is done.
func (j *Job) WaitFlushed(ctx context.Context, id uint64) error {
	var flushed bool
	err := j.waitFor(ctx, func() bool {
		flushed = j.flushed >= id
		return flushed || j.state != JobRunning
	})
	if err != nil || flushed {
		return err
	}
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitFor blocks until cond, called with j.mu held whenever the job has
// made progress, reports true, or ctx is done.
func (j *Job) waitFor(ctx context.Context, cond func() bool) error {
	for {
		j.mu.Lock()
		ok, ch := cond(), j.progress
		j.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// taskOpened records that a task's operators and source have opened.
func (j *Job) taskOpened() {
	j.mu.Lock()
	j.opened++
	if j.opened == j.tasks {
		j.signalLocked()
	}
	j.mu.Unlock()
}

// WaitOpened blocks until every task of the job has opened its operators
// and its source (a sink has opened its file, or failed to), the job
// ended, or ctx is done. Opening never waits on the outside world, so
// this returns promptly; what the job does next (catching up with its
// inputs) it does on its own.
func (j *Job) WaitOpened(ctx context.Context) error {
	return j.waitFor(ctx, func() bool { return j.opened == j.tasks || j.state != JobRunning })
}

// Stop cancels the job and waits for its goroutines to exit.
func (j *Job) Stop() {
	j.cancel()
	<-j.done
}

// Wait blocks until the job's goroutines have exited (or ctx is done) and
// returns the job's error, if it failed.
func (j *Job) Wait(ctx context.Context) error {
	select {
	case <-j.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err := j.State()
	return err
}

// Done is closed when every goroutine of the job has exited.
func (j *Job) Done() <-chan struct{} { return j.done }
