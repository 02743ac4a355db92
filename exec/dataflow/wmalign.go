package dataflow

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Watermark alignment (JobOptions.WatermarkAlignment), as in Flink's
// sources: a source whose watermark is more than the drift ahead of the
// lowest watermark among the job's sources waits for it, rather than
// reading on. Without it, a source that reads faster than another — the
// two scans of one stream in a self-join, a stream caught up beside one
// replaying its history — runs ahead, and whatever combines them (a
// window join, a windowed aggregate over a union) holds the fast side's
// rows until the slow side's watermark reaches them: state that grows
// with the distance between them, not with the window. Aligned, the
// distance stays within the drift.
//
// Only sources that have data to read hold the others back. A source
// counts once it has a watermark, and stops counting while it is caught
// up, idle (its idle timeout) or ended: a live stream with nothing new
// does not stop a backfill. A watermark that stays put while its source
// reads on (rows without advancing time) would stop the others for good,
// so they wait at most alignStall for the lowest watermark to rise; after
// that they read on until it rises again.
//
// Results do not change: a source's own watermark, and so which of its
// rows are late, depend only on its rows; alignment changes when rows are
// read, not what is read.
//
// JobOptions.SplitAlignment aligns less: the instances of each parallel
// scan whose splits share their event time (WatermarkSpec.SplitsShareTime:
// a generator dealing out one sequence of events), each scan a group of
// its own, when the job does not align all its sources.

// alignStall is how long the aligned sources wait for the lowest
// watermark to rise before they read on regardless.
const alignStall = 500 * time.Millisecond

// alignPoll bounds one wait of a source held back: it looks again at
// least this often (a timer of its chain, a stall).
const alignPoll = 50 * time.Millisecond

// sourceAlignment is the alignment group of a job's sources with event
// time. It is safe for concurrent use.
type sourceAlignment struct {
	drift int64 // milliseconds

	mu      sync.Mutex
	members []alignMember
	// low is the lowest watermark of the members that count (noWatermark
	// for a member without one yet, which holds everyone back), valid
	// while some member counts (any).
	low   int64
	any   bool
	lowAt time.Time     // when low last changed
	rose  chan struct{} // closed, and replaced, when low rises
	now   func() time.Time

	// held is the time the group's sources spent held back, in all.
	held atomic.Int64
}

// alignMember is one source instance's standing in its group.
type alignMember struct {
	wm     int64
	counts bool // has data to read
}

func newSourceAlignment(drift time.Duration) *sourceAlignment {
	return &sourceAlignment{drift: drift.Milliseconds(), rose: make(chan struct{}), now: time.Now}
}

// join adds a member and returns its number. A member counts from the
// start, without a watermark: until its first chunk or its first report
// of having nothing to read, the others wait for it (at most alignStall).
func (a *sourceAlignment) join() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.members = append(a.members, alignMember{wm: noWatermark, counts: true})
	a.low, a.any, a.lowAt = noWatermark, true, a.now()
	return len(a.members) - 1
}

// update records member id's watermark and whether it counts: whether it
// has data to read (it is neither caught up, idle nor ended).
func (a *sourceAlignment) update(id int, wm int64, counts bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := &a.members[id]
	if m.wm == wm && m.counts == counts {
		return
	}
	m.wm, m.counts = wm, counts
	low, any := a.lowest()
	if low == a.low && any == a.any {
		return
	}
	rising := !any || (a.any && low > a.low)
	a.low, a.any, a.lowAt = low, any, a.now()
	if rising {
		close(a.rose)
		a.rose = make(chan struct{})
	}
}

// lowest returns the lowest watermark of the members that count, and
// whether any does. The caller holds a.mu. A group has a few members
// (its sources' instances), so a scan costs little beside a chunk.
func (a *sourceAlignment) lowest() (int64, bool) {
	low, any := int64(0), false
	for _, m := range a.members {
		if m.counts && (!any || m.wm < low) {
			low, any = m.wm, true
		}
	}
	return low, any
}

// ahead reports whether a member whose watermark is wm must wait, and if
// so returns a channel closed when the lowest watermark rises and the
// time past which it need not wait any longer (the stall). A member
// without a watermark never waits. A member already held (held) waits
// until it is within half the drift, so that it then reads a run of
// chunks rather than one per rise of the lowest watermark.
func (a *sourceAlignment) ahead(wm int64, held bool) (rose <-chan struct{}, until time.Time, wait bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	drift := a.drift
	if held {
		drift /= 2
	}
	if wm == noWatermark || !a.any || (a.low != noWatermark && wm <= a.low+drift) {
		return nil, time.Time{}, false
	}
	until = a.lowAt.Add(alignStall)
	if !a.now().Before(until) {
		return nil, time.Time{}, false // stalled: read on
	}
	return a.rose, until, true
}

// WatermarkAlignment returns the drift within which the job aligns its
// sources' watermarks, or 0 when it does not (it was not asked to, or it
// has fewer than two sources with event time).
func (j *Job) WatermarkAlignment() time.Duration {
	if j.wmAlign == nil {
		return 0
	}
	return time.Duration(j.wmAlign.drift) * time.Millisecond
}

// alignUpdate reports the source's watermark to its alignment group, if
// it is in one; counts says whether the source has data to read.
func (t *task) alignUpdate(counts bool) {
	if a := t.alignGroup; a != nil && t.wm != nil && t.alignID >= 0 {
		a.update(t.alignID, t.wm.wm, counts && !t.wm.idle)
	}
}

// holdBack waits while the source is ahead of its alignment group, and
// reports whether it did: the caller then goes round its loop again,
// sending the barriers and markers asked for meanwhile, before it reads.
// A wait ends when the lowest watermark rises, a flush, barrier or
// latency marker is asked for, a timer of the chain is due (timerDue,
// unless zero), the group stalls, or after alignPoll. Its time counts as
// idle. Its output is flushed when a hold begins: what it holds may be
// what the others wait for.
func (t *task) holdBack(ctx context.Context, timerDue time.Time) (bool, error) {
	a := t.alignGroup
	if a == nil || t.wm == nil || t.alignID < 0 {
		return false, nil
	}
	rose, until, wait := a.ahead(t.wm.wm, t.alignHeld)
	if t.alignHeld = wait; !wait {
		t.alignFlushed = false
		return false, nil
	}
	if !t.alignFlushed {
		// Once per hold: the rows it holds may be what the others wait for.
		if err := t.flushHeld(ctx); err != nil {
			return false, err
		}
	}
	t.alignFlushed = true
	bg := t.state.background()
	if t.state.deferring() && bg == nil {
		// A step of the pending snapshot rather than a wait.
		return true, t.snapshotStep(ctx, maxStepTime)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t.mu.Lock()
	if t.barrier > 0 || t.latencyAsked() {
		t.mu.Unlock()
		return true, nil
	}
	t.wake = cancel
	t.mu.Unlock()
	deadline := time.Now().Add(alignPoll)
	if until.Before(deadline) {
		deadline = until
	}
	if !timerDue.IsZero() && timerDue.Before(deadline) {
		deadline = timerDue
	}
	timer := time.NewTimer(time.Until(deadline))
	start := time.Now()
	select {
	case <-rose:
	case <-wctx.Done():
	case <-timer.C:
	case <-bg: // a snapshot's writer goroutine ended: the task finishes it
	}
	timer.Stop()
	waited := int64(time.Since(start))
	t.taskM.IdleNanos.Add(waited)
	a.held.Add(waited)
	t.mu.Lock()
	t.wake = nil
	t.mu.Unlock()
	return true, ctx.Err()
}
