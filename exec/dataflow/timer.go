package dataflow

import (
	"context"
	"errors"
	"github.com/eddysql/eddy/exec"
	"time"
)

// The runtime's side of ProcessingTimer: a task whose chain has operators
// with timers checks, between messages, whether one is due, and bounds
// every wait for input by the earliest pending timer, so that a timer
// fires on time while no input arrives.

// timerOps returns the indexes of the operators of ops that have timers.
func timerOps(ops []exec.Operator) []int {
	var idx []int
	for i, op := range ops {
		if _, ok := op.(exec.ProcessingTimer); ok {
			idx = append(idx, i)
		}
	}
	return idx
}

// nextTimer returns the earliest pending timer of the chain's operators,
// or the zero Time.
func (c *chain) nextTimer() time.Time {
	var due time.Time
	for _, i := range c.timers {
		if d := c.ops[i].(exec.ProcessingTimer).NextTimer(); !d.IsZero() && (due.IsZero() || d.Before(due)) {
			due = d
		}
	}
	return due
}

// fireTimers calls OnTimer on each operator whose timer is due at now, in
// chain order, charging its busy time as control messages do.
func (c *chain) fireTimers(ctx context.Context, now time.Time) error {
	for _, i := range c.timers {
		op := c.ops[i].(exec.ProcessingTimer)
		if d := op.NextTimer(); d.IsZero() || now.Before(d) {
			continue
		}
		em := c.emitters[i]
		call := em.begin()
		err := op.OnTimer(ctx, now, em)
		em.end(c.metrics[i], call)
		if err != nil {
			return err
		}
	}
	return nil
}

// timers fires the chain's due timers and returns when the next one is
// due (the zero Time: none is pending). A task calls it before it takes
// each message, so a task busy with input still fires its timers on time.
func (t *task) timers(ctx context.Context) (time.Time, error) {
	if len(t.chain.timers) == 0 {
		return time.Time{}, nil
	}
	due := t.chain.nextTimer()
	if due.IsZero() {
		return due, nil
	}
	if now := t.env.Now(); !now.Before(due) {
		if err := t.chain.fireTimers(ctx, now); err != nil {
			return time.Time{}, err
		}
		due = t.chain.nextTimer()
	}
	return due, nil
}

// timerWait is the context a task waits for input under while a timer is
// pending: its parent's, ending when the timer is due, so that the wait
// returns and the task fires the timer. It is kept while the due time
// stays the same, so a busy task does not make a context per message.
type timerWait struct {
	due    time.Time
	ctx    context.Context
	cancel context.CancelFunc
}

// context returns the context to wait under until due (parent itself
// when due is zero). parent must be the same at every call.
func (w *timerWait) context(parent context.Context, due time.Time) context.Context {
	if due.IsZero() {
		w.stop()
		return parent
	}
	if w.ctx == nil || !w.due.Equal(due) {
		w.stop()
		w.ctx, w.cancel = context.WithDeadline(parent, due)
		w.due = due
	}
	return w.ctx
}

// stop releases the context's timer.
func (w *timerWait) stop() {
	if w.cancel != nil {
		w.cancel()
		w.ctx, w.cancel = nil, nil
	}
}

// timerExpired reports whether err, returned by a wait under wctx (from
// timerWait), means only that a timer is due: the task goes on.
func timerExpired(ctx, wctx context.Context, err error) bool {
	return wctx != ctx && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && wctx.Err() != nil
}
