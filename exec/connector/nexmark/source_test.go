package nexmark

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// TestBoundedEOF checks batch sizes and the end of a bounded sequence:
// io.EOF right after the last row, and again on every later call.
func TestBoundedEOF(t *testing.T) {
	cfg := testConfig(TableBid, 10_000)
	cfg.BatchSize = 1000
	src := openSplit(t, cfg, 0, 1)
	ctx := context.Background()
	var sizes []int
	if err := exectest.Drain(ctx, src, func(c exec.Chunk) error { sizes = append(sizes, c.NumRows()); return nil }); err != nil {
		t.Fatal(err)
	}
	// 9,200 bids: nine full batches and one of 200.
	if len(sizes) != 10 || sizes[0] != 1000 || sizes[8] != 1000 || sizes[9] != 200 {
		t.Errorf("batch sizes %v", sizes)
	}
	for range 2 {
		if _, err := src.Next(ctx); !errors.Is(err, io.EOF) {
			t.Errorf("after the end: %v, want io.EOF", err)
		}
	}
	if err := src.Wait(ctx); err != nil {
		t.Errorf("Wait after the end: %v", err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestUnbounded checks that an unbounded split keeps producing full
// batches, and that one with no events of its kind is caught up and waits
// for its context.
func TestUnbounded(t *testing.T) {
	src := openSplit(t, Config{Table: TablePerson, BaseTime: DefaultBaseTime, BatchSize: 500}, 1, 3)
	ctx := context.Background()
	for i := range 5 {
		c, err := src.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c.NumRows() != 500 {
			t.Errorf("batch %d: %d rows", i, c.NumRows())
		}
		c.Batch.Release()
	}
	if err := src.Wait(ctx); err != nil {
		t.Errorf("Wait with events ready: %v", err)
	}
	src.Close()

	// Splits taking one event each in turn: at parallelism 50, split 1
	// sees only auctions, no persons ever (in blocks of SplitBlock events,
	// every split has some of each table).
	empty := openSplit(t, Config{Table: TablePerson, BaseTime: DefaultBaseTime, block: 1}, 1, 50)
	if _, err := empty.Next(ctx); !errors.Is(err, exec.ErrCaughtUp) {
		t.Fatalf("Next of an empty split: %v, want ErrCaughtUp", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := empty.Wait(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait of an empty split: %v, want the context's error", err)
	}

	// Bounded, the same split simply ends.
	one := testConfig(TablePerson, 1000)
	one.block = 1
	bounded := openSplit(t, one, 1, 50)
	if _, err := bounded.Next(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Next of an empty bounded split: %v, want io.EOF", err)
	}
}

// TestRate checks the wall-clock throttle: 2,000 events at 4,000 events/s
// over two splits take about half a second (the last event is due at
// 1999/4000 s), and no split runs ahead of the schedule.
func TestRate(t *testing.T) {
	cfg := testConfig(TableBid, 2000)
	cfg.Rate = 4000
	ctx := context.Background()
	start := time.Now()
	type result struct {
		rows int
		err  error
	}
	done := make(chan result, 2)
	for i := range 2 {
		src := openSplit(t, cfg, i, 2)
		go func() { // openSplit's cleanup closes src after the test
			rows := 0
			err := exectest.Drain(ctx, src, func(c exec.Chunk) error { rows += c.NumRows(); return nil })
			done <- result{rows, err}
		}()
	}
	total := 0
	for range 2 {
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		total += r.rows
	}
	elapsed := time.Since(start)
	if total != 40*46 {
		t.Errorf("%d rows, want %d", total, 40*46)
	}
	if elapsed < 450*time.Millisecond || elapsed > 2*time.Second {
		t.Errorf("2000 events at 4000/s took %v, want about 500ms", elapsed)
	}

	// Early on, only the events due so far come out.
	src := openSplit(t, cfg, 0, 1)
	c, err := src.Next(ctx)
	if err == nil {
		// Events 4.. are due 1 ms apart: a fresh source has only a few.
		if c.NumRows() > 40 {
			t.Errorf("%d rows right after Open at 4000 events/s", c.NumRows())
		}
		c.Batch.Release()
	} else if !errors.Is(err, exec.ErrCaughtUp) {
		t.Fatal(err)
	}
}

// TestWaitCancel checks that Wait on a slow rate returns promptly with the
// context's error when the context is cancelled.
func TestWaitCancel(t *testing.T) {
	cfg := Config{Table: TableBid, BaseTime: DefaultBaseTime, Rate: 1} // the first bid is due after 4 s
	src := openSplit(t, cfg, 0, 1)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := src.Next(ctx); !errors.Is(err, exec.ErrCaughtUp) {
		t.Fatalf("Next: %v, want ErrCaughtUp", err)
	}
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	if err := src.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Wait took %v after cancel", d)
	}
	if _, err := src.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next on a cancelled context: %v", err)
	}
}

// TestLifecycle checks calls out of order.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	src, err := New(testConfig(TableBid, 100))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Next(ctx); err == nil {
		t.Error("Next before Open succeeded")
	}
	if err := src.Wait(ctx); err == nil {
		t.Error("Wait before Open succeeded")
	}
	env, _ := newEnv(0, 1)
	if err := src.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	if err := src.Open(ctx, env); err == nil {
		t.Error("second Open succeeded")
	}
	src.Close()
	if _, err := src.Next(ctx); err == nil {
		t.Error("Next after Close succeeded")
	}
	if err := src.Open(ctx, env); err == nil {
		t.Error("Open after Close succeeded")
	}
	other, _ := New(testConfig(TableBid, 100))
	env.Instance, env.Parallelism = 3, 3
	if err := other.Open(ctx, env); err == nil {
		t.Error("Open of instance 3 of 3 succeeded")
	}
	if err := (&Source{}).Close(); err != nil {
		t.Errorf("Close without Open: %v", err)
	}
}
