package giveway

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// checkEvery is how much work a Pacer does between two looks at the
// scheduler, and how long it sleeps at a time while it gives way: about
// the longest a task waits for a processor behind it.
const checkEvery = 100 * time.Microsecond

// minShare is the least share of its time a Pacer's work keeps while
// goroutines wait: it gives way for at most (1-minShare)/minShare times
// as long as it worked since it last did.
const minShare = 0.25

// Pacer paces one goroutine's background work. Its zero value is ready;
// it is not safe for concurrent use.
type Pacer struct {
	units  int       // units of work since the last look at the clock
	since  time.Time // when the work since the last give-way began
	sample [1]metrics.Sample

	// waiting and saturated, when set (tests), replace the count of
	// runnable goroutines and Saturated.
	waiting   func() int64
	saturated func() bool
}

// Step counts a unit of work. Once in every units (the caller picks the
// number to take some tens of microseconds: a thousand entries, sixteen
// words of pending groups) it reads the clock, and after checkEvery of
// work, if a task cannot keep up with its input (Saturated), it gives
// way to the goroutines waiting for a processor by sleeping. A nil Pacer
// does nothing.
func (p *Pacer) Step(every int) {
	if p == nil {
		return
	}
	if p.units++; p.units < every {
		return
	}
	p.units = 0
	now := time.Now()
	if p.since.IsZero() {
		p.since = now
		return
	}
	if now.Sub(p.since) < checkEvery {
		return
	}
	p.giveWay(now)
}

// giveWay sleeps while goroutines wait for a processor, for at most the
// time minShare allows after the work since p.since, if a task cannot
// keep up with its input (Saturated). It sleeps rather than yield:
// a goroutine woken onto another processor's queue (where a task wakes
// the one it feeds) runs elsewhere only when this processor has nothing
// to run and steals it.
func (p *Pacer) giveWay(now time.Time) {
	looks.Add(1)
	if !p.contended() {
		p.since = now
		return
	}
	limit := time.Duration(float64(now.Sub(p.since)) * (1 - minShare) / minShare)
	for p.runnable() > 0 && time.Since(now) < limit {
		time.Sleep(checkEvery)
	}
	p.since = time.Now()
}

// looks counts the times Pacers have looked whether to give way.
var looks atomic.Int64

// Looks returns how many times Pacers have looked whether to give way,
// after checkEvery of work each time: a test of work that paces itself
// checks that the count grows while the work runs (the giving way itself
// is this package's to test).
func Looks() int64 {
	return looks.Load()
}

// runnableMetric counts the goroutines ready to run but not running.
const runnableMetric = "/sched/goroutines/runnable:goroutines"

// runnable returns how many goroutines wait for a processor.
func (p *Pacer) runnable() int64 {
	if p.waiting != nil {
		return p.waiting()
	}
	p.sample[0].Name = runnableMetric
	metrics.Read(p.sample[:])
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(p.sample[0].Value.Uint64())
}

// contended reports whether the Pacer should give way: whether a task
// cannot keep up with its input.
func (p *Pacer) contended() bool {
	if p.saturated != nil {
		return p.saturated()
	}
	return Saturated()
}
