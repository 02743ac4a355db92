package connector

import (
	"math"
	"time"
)

// Throttle schedules a generator's global sequence of rows (or events) at
// Rate per wall-clock second: row n is due at Start + (n-First)/Rate.
// Every split of the generator uses the same schedule, from its own Open
// (First = 0) or Seek (First = the row it resumes at, which is due at
// once), so that together they emit at Rate.
type Throttle struct {
	Rate  float64 // 0: unthrottled
	Start time.Time
	First uint64 // the row due at Start
}

// maxDelay caps a wait computed from a very slow rate, so that durations
// cannot overflow; a source that slow is as good as paused.
const maxDelay = 100 * 365 * 24 * time.Hour

// LastDue returns the number of the last row due at now.
func (t *Throttle) LastDue(now time.Time) uint64 {
	x := now.Sub(t.Start).Seconds() * t.Rate
	switch {
	case x <= 0:
		return t.First
	case x >= math.MaxUint64/2 || uint64(x) >= math.MaxUint64-t.First:
		return math.MaxUint64
	}
	return t.First + uint64(x)
}

// Due returns when row n is due, rounded up to the nanosecond so that
// LastDue(Due(n)) >= n.
func (t *Throttle) Due(n uint64) time.Time {
	if n <= t.First {
		return t.Start
	}
	ns := math.Ceil(float64(n-t.First) / t.Rate * 1e9)
	if ns >= float64(maxDelay) {
		return t.Start.Add(maxDelay)
	}
	return t.Start.Add(time.Duration(ns) + 1)
}
