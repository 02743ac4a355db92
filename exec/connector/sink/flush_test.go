package sink

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// fakeClock is a processing-time clock a test moves by hand.
type fakeClock struct{ now time.Time }

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

// Now returns the clock's time.
func (c *fakeClock) Now() time.Time { return c.now }

// advance moves the clock d ahead.
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// at returns the time d from now.
func (c *fakeClock) at(d time.Duration) time.Time { return c.now.Add(d) }

// env returns a single-instance Env on the clock.
func (c *fakeClock) env() *exec.Env {
	e := exec.NewTestEnv(memory.DefaultAllocator)
	e.Clock = c.Now
	return e
}

// onTimer calls s's OnTimer at now, as its task does once NextTimer is due.
func onTimer(t *testing.T, s *Sink, now time.Time) {
	t.Helper()
	if err := s.OnTimer(context.Background(), now, nil); err != nil {
		t.Fatalf("OnTimer: %v", err)
	}
}

// TestFileSinkFlushInterval checks, on a fake clock, that a file sink's
// buffered rows reach the file once they have waited the flush interval
// (by default a second), with no further input and without FLUSH, and
// not before; that the timer is armed by the first rows that wait; and
// that flush_interval '0' writes every chunk out at once.
func TestFileSinkFlushInterval(t *testing.T) {
	alloc := newAlloc(t)
	rows := allRows(t)
	chunk := func(lo, hi int) exec.Chunk { return makeChunk(t, alloc, allNames, allTypes, rows[lo:hi], nil) }
	t.Run("default interval", func(t *testing.T) {
		cfg := fileConfig(t, "out.csv")
		cfg.AppendOnly = true
		clock := newFakeClock()
		start := clock.now
		s := mustNew(t, cfg)
		if err := s.Open(context.Background(), clock.env()); err != nil {
			t.Fatal(err)
		}
		if !s.NextTimer().IsZero() {
			t.Fatalf("a timer is pending before any row: %v", s.NextTimer())
		}
		process(t, s, chunk(0, 2))
		if due := s.NextTimer(); !due.Equal(start.Add(DefaultFlushInterval)) {
			t.Fatalf("NextTimer = %v, want a second after the first rows", due)
		}
		clock.advance(500 * time.Millisecond)
		process(t, s, chunk(2, 4)) // the timer stays where the first rows set it
		if due := s.NextTimer(); !due.Equal(start.Add(DefaultFlushInterval)) {
			t.Fatalf("NextTimer = %v after more rows, want it unchanged", due)
		}
		onTimer(t, s, start.Add(DefaultFlushInterval-time.Millisecond))
		if got := readFile(t, resolved(t, cfg)); got != "" {
			t.Fatalf("the rows were written before the interval passed:\n%s", got)
		}
		onTimer(t, s, start.Add(DefaultFlushInterval))
		if got, want := readFile(t, resolved(t, cfg)), lines(wantCSV...); got != want {
			t.Fatalf("after the interval the file holds\n%s\nwant\n%s", got, want)
		}
		if !s.NextTimer().IsZero() {
			t.Fatalf("a timer is pending with nothing buffered: %v", s.NextTimer())
		}
		// New rows arm the timer again, from when they came.
		clock.advance(2 * time.Second)
		process(t, s, chunk(0, 1))
		if due := s.NextTimer(); !due.Equal(clock.at(DefaultFlushInterval)) {
			t.Fatalf("NextTimer = %v, want a second after the new rows", due)
		}
		// FLUSH writes them (and fsyncs): nothing is left to wait.
		control(t, s, exec.Flush)
		if !s.NextTimer().IsZero() {
			t.Fatalf("a timer is pending after FLUSH: %v", s.NextTimer())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("every chunk", func(t *testing.T) {
		opts := map[string]string{"connector": "file", "path": "out.csv", "flush_interval": "0"}
		cfg := optionsConfig(t, opts, allNames, allTypes)
		cfg.AppendOnly = true
		s := mustNew(t, cfg)
		open(t, s)
		process(t, s, chunk(0, 4))
		if got, want := readFile(t, resolved(t, cfg)), lines(wantCSV...); got != want {
			t.Fatalf("after the chunk the file holds\n%s\nwant\n%s", got, want)
		}
		if !s.NextTimer().IsZero() {
			t.Fatalf("a timer is pending: %v", s.NextTimer())
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("partitioned", func(t *testing.T) {
		cfg := partConfig(t, map[string]string{"partition_by": "cat", "flush_interval": "250ms"})
		clock := newFakeClock()
		s := mustNew(t, cfg)
		if err := s.Open(context.Background(), clock.env()); err != nil {
			t.Fatal(err)
		}
		process(t, s, makeChunk(t, alloc, partNames, partTypes, [][]types.Datum{
			partRow(1, sp("a"), ip(1)), partRow(2, sp("b"), ip(1)),
		}, nil))
		onTimer(t, s, clock.at(249*time.Millisecond))
		checkTree(t, resolved(t, cfg), map[string]string{"Cat=a/part-0.csv": "", "Cat=b/part-0.csv": ""})
		onTimer(t, s, clock.at(250*time.Millisecond))
		checkTree(t, resolved(t, cfg), map[string]string{"Cat=a/part-0.csv": lines("1,a,1"), "Cat=b/part-0.csv": lines("2,b,1")})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
