package dataflow

import (
	"context"
	"time"

	"github.com/eddysql/eddy/exec"
)

// chain runs a fused sequence of operators in one goroutine: operator i's
// output goes straight into operator i+1 (no channel), and the last
// operator's output goes to out. It measures each operator's rows, batches
// and exclusive busy time (time in its own code, excluding the operators it
// calls downstream).
type chain struct {
	ops      []exec.Operator
	metrics  []*exec.OperatorMetrics
	emitters []*chainEmitter // emitters[i] receives op i's output
	out      exec.Emitter
	state    *stateAccount // nil: the job's state is not budgeted
	snap     *taskState    // the stateful operators, nil when none or no checkpoints
	timers   []int         // the operators that are ProcessingTimers
	// deferrers are the operators that are OutputDeferrers.
	deferrers []int
	// handed marks the operators handed to another job (handoff.go):
	// close leaves them open.
	handed []bool
}

// chainEmitter feeds operator next (or the chain's output when next ==
// len(ops)) and charges the time spent there to the caller's child time, so
// the caller's busy time stays exclusive.
type chainEmitter struct {
	c     *chain
	next  int
	child time.Duration // time spent downstream during the current call
}

func newChain(ops []exec.Operator, metrics []*exec.OperatorMetrics, out exec.Emitter) *chain {
	c := &chain{ops: ops, metrics: metrics, out: out, timers: timerOps(ops), handed: make([]bool, len(ops))}
	for i, op := range ops {
		if _, ok := op.(exec.OutputDeferrer); ok {
			c.deferrers = append(c.deferrers, i)
		}
	}
	c.emitters = make([]*chainEmitter, len(ops))
	for i := range ops {
		c.emitters[i] = &chainEmitter{c: c, next: i + 1}
	}
	return c
}

// Emit implements Emitter.
func (e *chainEmitter) Emit(ctx context.Context, ch exec.Chunk) error {
	if ch.NumRows() == 0 {
		return nil
	}
	start := time.Now()
	m := e.c.metrics[e.next-1]
	m.RowsOut.Add(int64(ch.NumRows()))
	m.BatchesOut.Add(1)
	var err error
	if e.next == len(e.c.ops) {
		err = e.c.out.Emit(ctx, ch)
	} else {
		err = e.c.process(ctx, e.next, 0, ch)
	}
	e.child += time.Since(start)
	return err
}

// process hands a chunk to operator i.
func (c *chain) process(ctx context.Context, i, input int, ch exec.Chunk) error {
	if len(c.ops) == 0 {
		return c.out.Emit(ctx, ch)
	}
	m := c.metrics[i]
	m.RowsIn.Add(int64(ch.NumRows()))
	m.BatchesIn.Add(1)
	em := c.emitters[i]
	call := em.begin()
	err := c.ops[i].Process(ctx, input, ch, em)
	em.end(m, call)
	if err == nil && c.state != nil {
		err = c.state.settle(i, m)
	}
	return err
}

// opCall is a call into an operator of the chain being timed: the child
// time of the call it interrupts (a control message handled while the
// operator is in a call of its own), and its start.
type opCall struct {
	saved time.Duration
	start time.Time
}

// begin starts timing a call into the operator that emits to e.
func (e *chainEmitter) begin() opCall {
	call := opCall{saved: e.child, start: time.Now()}
	e.child = 0
	return call
}

// end charges the operator that emits to e, whose metrics are m, the
// call's exclusive busy time: its time less what it spent downstream.
func (e *chainEmitter) end(m *exec.OperatorMetrics, call opCall) {
	m.BusyNanos.Add(int64(time.Since(call.start) - e.child))
	e.child = call.saved
}

// flushDeferred has every operator that defers output (exec.OutputDeferrer)
// emit what it holds, in chain order.
func (c *chain) flushDeferred(ctx context.Context) error {
	for _, i := range c.deferrers {
		em := c.emitters[i]
		call := em.begin()
		err := c.ops[i].(exec.OutputDeferrer).FlushDeferred(ctx, em)
		em.end(c.metrics[i], call)
		if err == nil && c.state != nil {
			err = c.state.settle(i, c.metrics[i])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// control delivers an aligned control message to every operator in order,
// each after the output its predecessor emitted while handling it. It
// reports whether the caller should forward the message downstream: not
// when an operator absorbed it (a regular join stops watermarks,
// WatermarkAbsorber), and then the operators after that one do not see it
// either.
func (c *chain) control(ctx context.Context, m exec.Control) (forward bool, err error) {
	for i, op := range c.ops {
		if m.Kind == exec.Watermark && !m.Idle {
			c.metrics[i].Watermark.Store(m.Watermark)
		}
		em := c.emitters[i]
		call := em.begin()
		err := op.OnControl(ctx, m, em)
		em.end(c.metrics[i], call)
		if err == nil && c.state != nil {
			err = c.state.settle(i, c.metrics[i])
		}
		if err == nil && m.Kind == exec.Barrier {
			err = c.snap.snapshot(ctx, i, m.Epoch)
		}
		if err != nil {
			return false, err
		}
		if a, ok := op.(exec.WatermarkAbsorber); ok && a.AbsorbsWatermarks() && m.Kind == exec.Watermark && m.Watermark != exec.MaxWatermark {
			return false, nil // the operators after it never see the watermark
		}
	}
	return true, nil
}

// close closes every operator, returning the first error, and returns
// their state to the budget.
func (c *chain) close() error {
	var first error
	for i, op := range c.ops {
		if c.handed[i] {
			continue
		}
		if err := op.Close(); err != nil && first == nil {
			first = err
		}
	}
	if c.state != nil {
		c.state.release()
	}
	return first
}
