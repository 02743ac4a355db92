package dataflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/recycle"
	"github.com/eddysql/eddy/internal/giveway"
)

// task runs one instance of a stage: it reads its source or its inbox,
// drives its operator chain, and writes to the next stage's inboxes (or,
// in the sink stage, reports markers to the job).
type task struct {
	name    string
	job     *Job
	env     *exec.Env
	pool    *recycle.Pool // env.Alloc: the task's output buffers, recycled
	source  exec.Source
	inbox   *inbox
	align   *aligner
	chain   *chain
	out     output // nil in the sink stage
	isSink  bool
	metrics []*exec.OperatorMetrics
	taskM   TaskMetrics
	closed  bool
	wm      *watermarker // source stages with event time
	shed    *shedder     // source stages of a job that sheds load
	keep    *keeper      // source stages that append the keep probability (shed_keep.go)
	tw      timerWait    // bounds waits for input by the chain's next timer

	// alignGroup is the source's alignment group (job.wmAlign, or its scan's
	// in job.splitAlign), if it is in one, and alignID its member number
	// there; alignHeld says the source is held back by its alignment
	// group, and alignFlushed that its output was flushed since the hold
	// began (wmalign.go).
	alignGroup              *sourceAlignment
	alignID                 int
	alignHeld, alignFlushed bool

	// wshed replaces shed when the job sheds whole windows.
	wshed *windowShedder

	// behindSince is when the source last had data waiting after being
	// caught up (unix nanoseconds), 0 while it is caught up: the lag.
	behindSince atomic.Int64

	state  *taskState   // the stateful operators, when the job checkpoints
	srcPos *sourceState // the source's position, when the job checkpoints
	held   []message    // messages held back until a barrier aligns (see hold)
	// lastChunk is the time the chain took for the last chunk, when the
	// job checkpoints: it sizes the steps of a pending snapshot.
	lastChunk time.Duration

	mu      sync.Mutex
	pending uint64 // highest flush id requested and not yet sent
	barrier uint64 // barrier requested and not yet sent (sources)
	// endPos is the encoded position of a source that ended, for the
	// checkpoints requested after it (see sourceEnded); nil while it runs.
	endPos []byte
	// finalDue says the task reached its end of input in a job that
	// takes a final checkpoint: the job snapshots its operators into the
	// store and closes it once every task has returned
	// (checkpoint_final.go).
	finalDue   bool
	caughtSent bool               // CaughtUp was sent
	wake       context.CancelFunc // interrupts a waiting source when a flush, barrier or latency marker is asked for
	// markers says the source task sends latency markers, latAsk the
	// round asked for and not yet sent (latency.go).
	markers bool
	latAsk  atomic.Pointer[latencyAsk]
}

// TaskMetrics are the times of one stage instance: waiting for input (idle)
// and blocked on output (backpressure). Busy time is per operator.
type TaskMetrics struct {
	IdleNanos         atomic.Int64
	BackpressureNanos atomic.Int64
}

// taskPoolBytes bounds the bytes a task's pool keeps of the output
// buffers its readers released: a few batches of every column in flight.
const taskPoolBytes = 16 << 20

type discard struct{}

func (discard) Emit(context.Context, exec.Chunk) error { return nil }

func (j *Job) newTask(si, inst int, g GraphSpec, senderBase [][]int, opts JobOptions) (*task, error) {
	sr := j.stages[si]
	spec := sr.spec
	t := &task{name: fmt.Sprintf("stage %d instance %d", si, inst), job: j}
	t.pool = recycle.New(opts.Alloc, taskPoolBytes)
	t.env = &exec.Env{Alloc: t.pool, Instance: inst, Parallelism: spec.Parallelism,
		KeyGroups: exec.KeyGroupsOf(inst, spec.Parallelism), Metrics: &exec.OperatorMetrics{}, OnWarning: opts.OnWarning,
		Shared: &sr.shared, CoarseChangelog: opts.Coalesce}
	if spec.Source != nil {
		src, err := spec.Source(inst)
		if err != nil {
			return nil, err
		}
		t.source = src
		if spec.Watermark != nil {
			t.wm = newWatermarker(*spec.Watermark, t.pool, t.env.Metrics)
			group := j.wmAlign
			if group == nil {
				group = j.splitAlign[si]
			}
			if _, msgs := src.(exec.MessageSource); group != nil && !msgs {
				// A message source (a view's changes) carries its
				// watermarks in-band: it is not held back, nor holds back.
				t.alignGroup, t.alignID = group, group.join()
			} else {
				t.alignID = -1
			}
		}
		if j.shed != nil && j.shed.windows == nil {
			t.shed = newShedder(&j.shed.drop, j.shed.spec.Seed, si<<16|inst)
		} else if j.shed != nil {
			t.wshed = j.shed.windows.shedder(spec)
		}
		if spec.Keep {
			t.keep = newKeeper(t.pool)
		}
	} else {
		t.inbox = sr.inboxes[inst]
		t.align = newAligner(sr.senders)
		for k, in := range spec.Inputs {
			for p := 0; p < g.Stages[in.From].Parallelism; p++ {
				t.align.setInput(senderBase[si][k]+p, in.Input)
			}
			if in.IgnoreWatermarks {
				for p := 0; p < g.Stages[in.From].Parallelism; p++ {
					t.align.ignoreWatermarks(senderBase[si][k] + p)
				}
			}
		}
	}
	ops := make([]exec.Operator, 0, len(spec.Ops))
	for _, os := range spec.Ops {
		op, err := os.New(inst)
		if err != nil {
			for _, o := range ops {
				o.Close()
			}
			if t.source != nil {
				t.source.Close()
			}
			return nil, fmt.Errorf("%s: %w", os.Name, err)
		}
		ops = append(ops, op)
		t.metrics = append(t.metrics, &exec.OperatorMetrics{})
	}
	// Write to the consumers of this stage's output.
	var out exec.Emitter = discard{}
	var writers fanout
	for _, c := range sr.consumers {
		in := g.Stages[c.stage].Inputs[c.input]
		writers = append(writers, &outWriter{alloc: t.pool, dist: in.Dist, keys: in.Keys, project: in.Project,
			inboxes: j.stages[c.stage].inboxes, instance: inst, sender: senderBase[c.stage][c.input] + inst,
			input: in.Input, bp: &t.taskM.BackpressureNanos, coalesce: opts.Coalesce})
	}
	switch len(writers) {
	case 0:
	case 1:
		t.out, out = writers[0], writers[0]
	default:
		t.out, out = writers, writers
	}
	t.isSink = t.out == nil
	t.chain = newChain(ops, t.metrics, out)
	if t.inbox != nil {
		t.inbox.takesParts = takesParts(ops)
	}
	if j.account != nil {
		t.chain.state = &stateAccount{budget: opts.StateBudget, job: j.account, charged: make([]int64, len(ops))}
	}
	if opts.State != nil {
		st, err := newTaskState(opts.State, spec, si, ops, t.env.KeyGroups, &j.stateWritten, &j.stateRead)
		if err != nil {
			t.close()
			return nil, err
		}
		t.state, t.chain.snap = st, st
		if t.source != nil {
			if t.srcPos, err = newSourceState(opts.State, spec, si, inst); err != nil {
				t.close()
				return nil, err
			}
			if t.wshed != nil && j.restore {
				if err := t.wshed.fates.restore(t.srcPos.table); err != nil {
					t.close()
					return nil, fmt.Errorf("stage %d: %w", si, err)
				}
			}
		}
	}
	return t, nil
}

func (t *task) close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	t.state.closeAdopted()
	t.tw.stop()
	t.keep.close()
	err := t.chain.close()
	if t.source != nil {
		if cerr := t.source.Close(); err == nil {
			err = cerr
		}
	}
	if t.out != nil {
		t.out.release() // parts never sent
	}
	if t.inbox != nil {
		t.inbox.drain() // release whatever is still queued for this instance
	}
	t.pool.Close()
	return err
}

func (t *task) run(ctx context.Context) error {
	for i, op := range t.chain.ops {
		// Each operator gets its own metrics: the chain counts its rows,
		// batches and busy time there, and the operator its state.
		env := *t.env
		env.Metrics = t.metrics[i]
		if err := op.Open(ctx, &env); err != nil {
			return err
		}
	}
	// A restore positions the sources first and restores the sink's
	// operators before the others' (restore_order.go).
	if t.source != nil {
		if err := t.source.Open(ctx, t.env); err != nil {
			return err
		}
		if t.wm != nil {
			t.wm.trackPartitions(t.source)
		}
		if t.srcPos != nil && t.job.restore {
			if err := t.srcPos.restore(ctx, t); err != nil {
				return t.job.restoreFailed(ctx, err, false)
			}
			t.job.sourcePositioned(t.source)
		}
	}
	if t.job.restore {
		if !t.isSink {
			if err := t.job.awaitTurn(ctx); err != nil {
				return err
			}
		}
		if t.state != nil {
			if err := t.job.finishedErr; err != nil {
				return t.job.restoreFailed(ctx, err, true)
			}
			if err := t.state.restore(ctx, t.job.restored, t.job.restoredFinished); err != nil {
				return t.job.restoreFailed(ctx, err, true)
			}
		}
		if t.isSink {
			t.job.sinkRestored()
		}
	}
	if t.srcPos != nil && t.job.restore && t.wm != nil && t.wm.wm != noWatermark {
		// The restored watermark goes out again before any row: the
		// aligners downstream start over, and without it an input that
		// has nothing new would hold back their watermark (an interval
		// join would free and pad its rows later than an uninterrupted
		// run).
		if err := t.deliver(ctx, exec.Control{Kind: exec.Watermark, Watermark: t.wm.wm}); err != nil {
			return err
		}
	}
	t.job.taskOpened()
	if t.source != nil {
		if ms, ok := t.source.(exec.MessageSource); ok {
			return t.runMessageSource(ctx, ms)
		}
		return t.runSource(ctx)
	}
	return t.runInbox(ctx)
}

// deliver runs an aligned control message through the chain and passes it on.
func (t *task) deliver(ctx context.Context, m exec.Control) error {
	if m.Kind == exec.LatencyMarker {
		return t.passLatency(ctx, m)
	}
	if m.Kind == exec.Barrier || m.Kind == exec.EndOfInput {
		// A snapshot still pending is finished first: an operator has
		// one at a time, and a job that ends has written them all.
		if err := t.finishSnapshot(ctx, m.Kind == exec.Barrier); err != nil {
			return err
		}
	}
	forward, err := t.chain.control(ctx, m)
	if err != nil || !forward {
		return err
	}
	if m.Kind == exec.Barrier {
		// Before the barrier goes on: the checkpoint completes once it
		// reaches the sink and no snapshot is pending, and its figures
		// must be in by then.
		if t.state.deferring() {
			t.job.snapshotBegun()
		}
		var aligned time.Duration
		if t.align != nil {
			aligned = t.align.aligned
		}
		t.job.noteBarrier(m.Epoch, t.state.takeSync(), aligned)
	}
	if m.Kind == exec.CaughtUp && m.Input >= 0 {
		return nil // for this stage's operator only: downstream learns when every input is
	}
	if t.out != nil {
		if err := t.out.control(ctx, m); err != nil {
			return err
		}
	} else {
		inst := 0
		if t.env != nil { // a task put together by hand (tests) has none
			inst = t.env.Instance
		}
		t.job.sinkControl(inst, m)
	}
	if t.job.stopsAt(m) {
		return errStopped
	}
	return nil
}

func (t *task) runInbox(ctx context.Context) error {
	// The task's claim on the cores: a checkpoint's background work gives
	// way while the task cannot keep up with its input (giveway.Demand).
	// Source tasks hold none: a source may wait inside Next (for its rate,
	// or polling) without saying so, and would look saturated throughout.
	demand := giveway.NewDemand()
	defer demand.Close()
	for {
		due, err := t.timers(ctx)
		if err != nil {
			return err
		}
		if len(t.inbox.ch) == 0 {
			demand.Waiting()
			// Out of input for now: what operators defer and what waits
			// to be coalesced go out before the task sleeps.
			if err := t.flushHeld(ctx); err != nil {
				return err
			}
		}
		if t.state.deferring() {
			// Between chunks, a step of the pending snapshot; while no
			// input waits and no timer is due, step after step.
			idle := func() bool { return len(t.inbox.ch) == 0 && (due.IsZero() || time.Now().Before(due)) }
			if err := t.snapshotSteps(ctx, idle); err != nil {
				return err
			}
		}
		wctx := t.tw.context(ctx, due)
		// A snapshot's writer goroutine that finishes wakes the task, so
		// that the checkpoint does not wait for input to complete.
		m, err := t.inbox.take(wctx, t.state.background(), &t.taskM.IdleNanos)
		if timerExpired(ctx, wctx, err) || err == errWoken {
			continue
		}
		if err != nil {
			return err
		}
		demand.Busy()
		if ended, err := t.handle(ctx, m); err != nil || ended {
			return err
		}
	}
}

// handle runs a message from the inbox: a chunk through the chain, a
// control message through the aligner. It reports whether the input
// ended.
func (t *task) handle(ctx context.Context, m message) (ended bool, err error) {
	if t.hold(m) {
		return false, nil
	}
	if m.ctrl.Kind == 0 {
		if t.injectFailure() {
			m.release()
			panic("injected task failure (EDDY_TEST_TASK_PANIC_RATE)")
		}
		var err error
		if m.parts != nil {
			err = t.processParts(ctx, m.input, m.parts, m.sels)
		} else {
			err = t.process(ctx, m.input, m.chunk)
		}
		m.release()
		return false, err
	}
	for _, c := range t.align.add(m.sender, m.ctrl) {
		if err := t.deliver(ctx, c); err != nil {
			return false, err
		}
		switch c.Kind {
		case exec.EndOfInput:
			t.markFinal()
			return true, nil
		case exec.Barrier:
			if ended, err := t.releaseHeld(ctx); err != nil || ended {
				return ended, err
			}
		}
	}
	return false, nil
}

// requestFlush records a flush request and wakes the source if it waits.
func (t *task) requestFlush(id uint64) {
	t.mu.Lock()
	if id > t.pending {
		t.pending = id
	}
	wake := t.wake
	t.mu.Unlock()
	if wake != nil {
		wake()
	}
}

func (t *task) takePending() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pending
	t.pending = 0
	return p
}

// sourceTurn starts a turn of a source task's loop: it ends the task when
// the job was stopped (a source that always has data never blocks, so
// nothing else would notice), then fires the due timers and returns when
// the next is due.
func (t *task) sourceTurn(ctx context.Context) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	return t.timers(ctx)
}

func (t *task) runSource(ctx context.Context) error {
	defer t.alignUpdate(false) // an ended or failed source holds no one back
	for {
		due, err := t.sourceTurn(ctx)
		if err != nil {
			return err
		}
		// A barrier goes out after the rows emitted so far.
		if err := t.sendBarrier(ctx); err != nil {
			return err
		}
		if err := t.sendLatency(ctx); err != nil {
			return err
		}
		// A step of the pending snapshot between chunks.
		if err := t.snapshotSteps(ctx, nil); err != nil {
			return err
		}
		// A source ahead of the others waits for them (wmalign.go).
		if held, err := t.holdBack(ctx, due); held || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		// Flush requests made before this call to Next are satisfied once
		// Next reports the source caught up (or ended).
		asked := t.takePending()
		start := time.Now()
		c, err := t.source.Next(ctx)
		t.env.Metrics.BusyNanos.Add(int64(time.Since(start)))
		switch {
		case err == nil:
			if t.behindSince.Load() == 0 {
				t.behindSince.Store(time.Now().UnixNano())
			}
			if err := t.sourceChunk(ctx, c); err != nil {
				return err
			}
			t.alignUpdate(true)
			if _, gen := t.source.(exec.Generator); gen && asked > 0 {
				if err := t.deliver(ctx, exec.Control{Kind: exec.Flush, FlushID: asked}); err != nil {
					return err
				}
				continue
			}
			t.requeue(asked)
		case errors.Is(err, io.EOF):
			t.alignUpdate(false)
			t.behindSince.Store(0)
			if err := t.caughtUp(ctx); err != nil {
				return err
			}
			if t.wm != nil {
				// The end of a bounded input: every event time is behind it.
				if err := t.deliver(ctx, exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}); err != nil {
					return err
				}
			}
			if asked > 0 {
				if err := t.deliver(ctx, exec.Control{Kind: exec.Flush, FlushID: asked}); err != nil {
					return err
				}
			}
			if err := t.sourceEnded(ctx); err != nil {
				return err
			}
			if err := t.deliver(ctx, exec.Control{Kind: exec.EndOfInput}); err != nil {
				return err
			}
			t.markFinal()
			return nil
		case errors.Is(err, exec.ErrCaughtUp):
			t.alignUpdate(false)
			t.behindSince.Store(0)
			if err := t.caughtUp(ctx); err != nil {
				return err
			}
			if bs, ok := t.source.(exec.BoundedSource); ok && bs.Bounded() {
				t.requeue(asked) // answered at its end
				asked = 0
			}
			if asked > 0 {
				if err := t.deliver(ctx, exec.Control{Kind: exec.Flush, FlushID: asked}); err != nil {
					return err
				}
			}
			if err := t.flushHeld(ctx); err != nil {
				return err
			}
			if t.state.deferring() && t.state.background() == nil {
				// No wait while a snapshot is pending: a step as long as
				// the source has no data, then the source is asked again.
				// (One written in the background wakes the wait below.)
				if err := t.snapshotStep(ctx, maxStepTime); err != nil {
					return err
				}
				continue
			}
			if err := t.wait(ctx, due); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// sourceChunk runs one chunk from the source through the chain: late rows
// dropped first, and the watermark it advanced delivered after it.
func (t *task) sourceChunk(ctx context.Context, c exec.Chunk) error {
	m := t.env.Metrics
	m.RowsIn.Add(int64(c.NumRows()))
	m.BatchesIn.Add(1)
	if t.wm == nil && t.shed == nil && t.wshed == nil && t.keep == nil {
		m.RowsOut.Add(int64(c.NumRows()))
		m.BatchesOut.Add(1)
		err := t.process(ctx, 0, c)
		c.Batch.Release()
		return err
	}
	kept, advanced := c, false
	var err error
	if t.wm != nil {
		kept, advanced, err = t.wm.apply(ctx, c)
	}
	if err == nil && (t.shed != nil || t.wshed != nil) {
		// Shed after the watermark has seen every row, so that dropping
		// rows never holds event time back.
		var left exec.Chunk
		if t.wshed != nil {
			left, err = t.wshed.apply(kept, m, t.env.Alloc)
		} else {
			left, err = t.shed.apply(kept, m, t.env.Alloc)
		}
		if err == nil && left.Batch != kept.Batch {
			if kept.Batch != c.Batch {
				kept.Batch.Release()
			}
			kept = left
		}
	}
	if err == nil && t.keep != nil {
		kept = t.keep.apply(kept, c, t.shed)
	}
	m.RowsOut.Add(int64(kept.NumRows()))
	m.BatchesOut.Add(1)
	if err == nil && kept.NumRows() > 0 {
		err = t.process(ctx, 0, kept)
	}
	if kept.Batch != c.Batch {
		kept.Batch.Release()
	}
	c.Batch.Release()
	if err != nil || !advanced {
		return err
	}
	return t.deliver(ctx, t.wm.control())
}

// requeue puts back flush requests taken before a Next that returned data:
// they are satisfied only when the source catches up.
func (t *task) requeue(id uint64) {
	if id == 0 {
		return
	}
	t.mu.Lock()
	if id > t.pending {
		t.pending = id
	}
	t.mu.Unlock()
}

// wait blocks in the source's Wait until data may be available, a flush is
// requested, a timer of the chain is due (timerDue, unless zero), a
// snapshot's writer goroutine ends, or ctx is done.
func (t *task) wait(ctx context.Context, timerDue time.Time) error {
	wctx, cancel := context.WithCancel(ctx)
	t.mu.Lock()
	if t.pending > 0 || t.barrier > 0 || t.latencyAsked() {
		t.mu.Unlock()
		cancel()
		return nil
	}
	t.wake = cancel
	t.mu.Unlock()
	defer wakeOn(wctx, cancel, t.state.background())()
	var deadline time.Time
	hasDeadline := false
	if t.wm != nil {
		deadline, hasDeadline = t.wm.idleDeadline()
	}
	if until := deadline; hasDeadline || !timerDue.IsZero() {
		if !timerDue.IsZero() && (!hasDeadline || timerDue.Before(until)) {
			until = timerDue
		}
		var dcancel context.CancelFunc
		wctx, dcancel = context.WithDeadline(wctx, until)
		defer dcancel()
	}
	start := time.Now()
	err := t.source.Wait(wctx)
	t.taskM.IdleNanos.Add(int64(time.Since(start)))
	t.mu.Lock()
	t.wake = nil
	t.mu.Unlock()
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if hasDeadline && !time.Now().Before(deadline) && (err == nil || errors.Is(err, context.DeadlineExceeded)) {
		// No data for the idle timeout: stop holding back downstream
		// watermarks until data arrives again.
		t.wm.idle = true
		return t.deliver(ctx, t.wm.control())
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// wakeOn cancels a wait (cancel, of ctx) when ch, unless nil, is closed
// first. The function it returns, called once the wait is over, cancels
// it and waits for the goroutine that watches ch.
func wakeOn(ctx context.Context, cancel context.CancelFunc, ch <-chan struct{}) func() {
	if ch == nil {
		return cancel
	}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return func() {
		cancel()
		<-watched
	}
}

// caughtUp sends CaughtUp the first time the source catches up (or ends).
func (t *task) caughtUp(ctx context.Context) error {
	if t.caughtSent {
		return nil
	}
	t.caughtSent = true
	return t.deliver(ctx, exec.Control{Kind: exec.CaughtUp, Input: -1})
}

func (t *task) runMessageSource(ctx context.Context, ms exec.MessageSource) error {
	// A message source (a view's changes) starts with the view's contents:
	// it counts as caught up from the start.
	if err := t.caughtUp(ctx); err != nil {
		return err
	}
	for {
		due, err := t.sourceTurn(ctx)
		if err != nil {
			return err
		}
		if err := t.flushHeld(ctx); err != nil {
			return err
		}
		// The next message may be long in coming: a pending snapshot is
		// finished first.
		if err := t.finishSnapshot(ctx, false); err != nil {
			return err
		}
		if err := t.sendBarrier(ctx); err != nil {
			return err
		}
		if err := t.sendLatency(ctx); err != nil {
			return err
		}
		// A barrier or latency marker requested while the source waits
		// interrupts the wait.
		bctx, cancel := context.WithCancel(ctx)
		t.mu.Lock()
		t.wake = cancel
		asked := t.barrier > 0 || t.latencyAsked()
		t.mu.Unlock()
		if asked {
			cancel()
		}
		wctx := t.tw.context(bctx, due)
		start := time.Now()
		c, ctrl, err := ms.NextMessage(wctx)
		t.taskM.IdleNanos.Add(int64(time.Since(start)))
		t.mu.Lock()
		t.wake = nil
		t.mu.Unlock()
		cancel()
		if ctx.Err() == nil && bctx.Err() != nil && err != nil {
			continue // woken for a barrier or a latency marker
		}
		if timerExpired(ctx, wctx, err) {
			continue
		}
		if err != nil {
			return err
		}
		t.takePending() // markers arrive in-band
		if ctrl.Kind == 0 {
			perr := t.process(ctx, 0, c)
			c.Batch.Release()
			if perr != nil {
				return perr
			}
			continue
		}
		if err := t.deliver(ctx, ctrl); err != nil {
			return err
		}
		if ctrl.Kind == exec.EndOfInput {
			t.markFinal()
			return nil
		}
	}
}

// process runs a chunk on input through the chain, timing it when the
// job checkpoints (lastChunk).
func (t *task) process(ctx context.Context, input int, c exec.Chunk) error {
	if t.state == nil {
		return t.chain.process(ctx, 0, input, c)
	}
	start := time.Now()
	err := t.chain.process(ctx, 0, input, c)
	t.lastChunk = time.Since(start)
	return err
}

// flushHeld sends on what the task holds back while input is at hand, as
// it is about to wait: the output its operators defer (in chain order, so
// that each one's flush reaches the next first), then the parts its
// exchanges hold to coalesce.
func (t *task) flushHeld(ctx context.Context) error {
	if err := t.chain.flushDeferred(ctx); err != nil {
		return err
	}
	if t.out != nil {
		return t.out.flush(ctx)
	}
	return nil
}

// processParts runs the parts of an exchange's message through the chain,
// as process does a chunk.
func (t *task) processParts(ctx context.Context, input int, parts []exec.Chunk, sels [][]int32) error {
	if t.state == nil {
		return t.chain.processParts(ctx, input, parts, sels)
	}
	start := time.Now()
	err := t.chain.processParts(ctx, input, parts, sels)
	t.lastChunk = time.Since(start)
	return err
}
