package giveway

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// contendedPacer returns a Pacer that finds a task saturated, with
// waiting as its count of runnable goroutines (the runtime's when nil).
func contendedPacer(waiting func() int64) *Pacer {
	return &Pacer{waiting: waiting, saturated: func() bool { return true }}
}

// TestStepLooksOnlyAfterWork checks that Step looks at the scheduler only
// every every units, once checkEvery of work has passed, and that Looks
// counts the look.
func TestStepLooksOnlyAfterWork(t *testing.T) {
	before := Looks()
	looks := 0
	p := &Pacer{saturated: func() bool { looks++; return false }}
	for range 3 {
		p.Step(4)
	}
	if looks != 0 || !p.since.IsZero() {
		t.Fatalf("before the first 4 units: %d looks, clock started %v", looks, !p.since.IsZero())
	}
	p.Step(4) // starts the clock
	if looks != 0 || p.since.IsZero() {
		t.Fatalf("at the 4th unit: %d looks, clock started %v", looks, !p.since.IsZero())
	}
	p.since = time.Now().Add(-time.Hour) // as if after long work
	for range 3 {
		p.Step(4)
	}
	if looks != 0 {
		t.Fatalf("between looks: %d looks", looks)
	}
	p.Step(4)
	if looks != 1 {
		t.Fatalf("after checkEvery of work: %d looks, want 1", looks)
	}
	if n := Looks() - before; n != 1 {
		t.Fatalf("Looks grew by %d, want 1", n)
	}
	if time.Since(p.since) > time.Minute {
		t.Fatal("looking did not restart the clock")
	}
}

// TestNoGiveWayWithoutContention checks that a Pacer does not sleep,
// however many goroutines are runnable, while no task is saturated, and
// gives way once one is.
func TestNoGiveWayWithoutContention(t *testing.T) {
	saturated := false
	p := &Pacer{waiting: func() int64 { return 3 }, saturated: func() bool { return saturated }}
	for look := range 3 {
		now := time.Now()
		p.since = now.Add(-time.Second) // a limit of 3 s
		p.giveWay(now)
		if d := time.Since(now); d >= checkEvery {
			t.Fatalf("look %d: gave way for %v without contention", look, d)
		}
		if p.since.Before(now) {
			t.Fatalf("look %d: the clock did not restart", look)
		}
	}
	saturated = true
	now := time.Now()
	p.since = now.Add(-time.Millisecond)
	p.giveWay(now)
	if d := time.Since(now); d < 3*time.Millisecond {
		t.Fatalf("gave way for %v with a task saturated, want its limit of 3 ms", d)
	}
}

// TestGiveWaySleepsWhileOthersWait checks that a contended Pacer sleeps
// until no goroutine waits, when that comes within its limit.
func TestGiveWaySleepsWhileOthersWait(t *testing.T) {
	left := 3
	looks := 0
	p := contendedPacer(func() int64 {
		looks++
		if left == 0 {
			return 0
		}
		left--
		return 2
	})
	now := time.Now()
	p.since = now.Add(-time.Second) // a limit of 3 s
	p.giveWay(now)
	if looks != 4 {
		t.Fatalf("%d looks, want 4 (three while goroutines waited)", looks)
	}
	if d := time.Since(now); d < 3*checkEvery {
		t.Fatalf("gave way for %v, less than three sleeps of %v", d, checkEvery)
	}
}

// TestGiveWayKeepsItsShare checks that a Pacer whose waiters never leave
// gives way for about three times its work (minShare), not for ever.
func TestGiveWayKeepsItsShare(t *testing.T) {
	p := contendedPacer(func() int64 { return 1 })
	now := time.Now()
	work := 4 * time.Millisecond
	p.since = now.Add(-work)
	p.giveWay(now)
	d := time.Since(now)
	if limit := 3 * work; d < limit || d > limit+time.Second {
		t.Fatalf("gave way for %v after %v of work; want about %v", d, work, limit)
	}
}

// TestGiveWayLetsAGoroutineRun checks, with Go's own count of runnable
// goroutines, that a goroutine waiting for the only processor runs while
// the Pacer gives way, and that the Pacer stops giving way once it has.
func TestGiveWayLetsAGoroutineRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var ran atomic.Bool
	done := make(chan struct{})
	go func() { // runnable, not running: this goroutine holds the processor
		ran.Store(true)
		close(done)
	}()
	p := contendedPacer(nil)
	if n := p.runnable(); n < 1 {
		t.Fatalf("runnable goroutines: %d, want at least the one started", n)
	}
	now := time.Now()
	p.since = now.Add(-10 * time.Second) // a limit of 30 s
	p.giveWay(now)
	if !ran.Load() {
		t.Fatal("the waiting goroutine did not run while the pacer gave way")
	}
	if d := time.Since(now); d > 10*time.Second {
		t.Fatalf("gave way for %v after the goroutine ran", d)
	}
	<-done
}

// BenchmarkLook measures a Pacer's look when no task is saturated, about
// every checkEvery of background work: Saturated over 64 open Demands.
//
//	go test ./internal/giveway -run XXX -bench BenchmarkLook -benchmem
func BenchmarkLook(b *testing.B) {
	for range 64 {
		d := NewDemand()
		d.Waiting()
		defer d.Close()
	}
	var p Pacer
	for b.Loop() {
		p.contended()
	}
}
