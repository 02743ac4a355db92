package exec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
)

func TestSessionEmitOnClose(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)", "sum(2)")
	cfg.EmitOnClose = true
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w, err := NewSessionWindowAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := NewTestEnv(alloc)
	lastBytes, prevKeys := int64(0), int64(0)
	gauge := func(keys int64) func(t *testing.T) {
		return func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != keys {
				t.Errorf("StateKeys = %d, want %d", got, keys)
			}
			// The estimate grows with the sessions and falls when they close.
			b := env.Metrics.StateBytes.Load()
			if prev := lastBytes; b < 0 || (keys > 0 && b == 0) || (keys > prevKeys && b <= prev) || (keys < prevKeys && b >= prev) {
				t.Errorf("StateBytes = %d with %d sessions, was %d with %d", b, keys, prev, prevKeys)
			}
			lastBytes, prevKeys = b, keys
		}
	}
	winRun(t, w, env, []winStep{{
		in: sessKTV + `
			+I a 0 1
			+I b 3 2
			+I a 5 3
			+I a 30 4
			+I b 31 5`,
		check: gauge(4),
	}, {
		// b's [3,13) ends first, then a's [0,15).
		ctl: Watermark, wm: 20,
		want: `+I b 3 13 1 2
			+I a 0 15 2 4`,
		check: gauge(2),
	}, {
		in: sessKTV + `
			+I a 35 6
			+I c 100 7`,
		check: gauge(3),
	}, {
		// Nothing ends at or before 40 yet.
		ctl: Watermark, wm: 40,
		check: gauge(3),
	}, {
		ctl: Watermark, wm: 45,
		want: `+I b 31 41 1 5
			+I a 30 45 2 10`,
		check: gauge(1),
	}, {
		ctl:   EndOfInput,
		want:  `+I c 100 110 1 7`,
		check: gauge(0),
	}})
}

func TestSessionRunningForgetsOnWatermark(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)")
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w, err := NewSessionWindowAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := NewTestEnv(alloc)
	keys := func(want int64) func(t *testing.T) {
		return func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != want {
				t.Errorf("StateKeys = %d, want %d", got, want)
			}
		}
	}
	out := winRun(t, w, env, []winStep{{
		in: sessKTV + `
			+I a 0 0
			+I b 0 0
			+I a 20 0`,
		want: `+I a 0 10 1
			+I b 0 10 1
			+I a 20 30 1`,
		check: keys(3),
	}, {
		ctl: Watermark, wm: 10, check: keys(1),
	}, {
		in: sessKTV + `
			+I a 25 0`,
		want: `-U a 20 30 1
			+U a 20 35 2`,
		check: keys(1),
	}, {
		ctl: EndOfInput, check: keys(0),
	}})
	if got, want := strings.Join(out.rows(), "|"), "a 0 10 1|a 20 35 2|b 0 10 1"; got != want {
		t.Errorf("integrated output %q, want %q", got, want)
	}
	if got := env.Metrics.StateBytes.Load(); got < 0 {
		t.Errorf("StateBytes = %d after every session closed", got)
	}
}

func TestSessionDropsNullTimes(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)")
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w, err := NewSessionWindowAgg(cfg)
	if err != nil {
		t.Fatal(err)
	}
	winRun(t, w, NewTestEnv(alloc), []winStep{{
		in: sessKTV + `
			+I a NULL 0
			+I a 3 0
			+I b NULL 0`,
		want: `+I a 3 13 1`,
	}})
	if got := w.Dropped(); got != 2 {
		t.Errorf("Dropped() = %d, want 2", got)
	}
}

func TestSessionErrors(t *testing.T) {
	cfg := sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)")
	sessRun(t, cfg, []winStep{{
		in: sessKTV + `
			+I a 3 0
			-D a 3 0`,
		err: ErrSessionRetraction,
	}})
	sum := sessConfig(t, sessKTV, nil, 1, 10, "sum(2)")
	sessRun(t, sum, []winStep{{
		in: sessKTV + `
			+I a 1 9223372036854775807
			+I a 2 -9223372036854775808
			+I a 3 9223372036854775807`,
		want: `+I 1 13 9223372036854775806`,
	}, {
		in: sessKTV + `
			+I a 4 9223372036854775807`,
		err: accum.ErrOverflow,
	}})
	for _, tc := range []struct {
		cfg  SessionAggConfig
		want string
	}{
		{sessConfig(t, sessKTV, []int{0}, 2, 10), "not TIMESTAMP"},
		{sessConfig(t, sessKTV, []int{0}, 1, 0), "gap 0"},
		{sessConfig(t, sessKTV, []int{3}, 1, 10), "out of range"},
		{sessConfig(t, sessKTV, nil, 1, 10, "approx_count_distinct(2)"), "not supported"},
		{sessConfig(t, sessKTV, nil, 1, 10, "sum(0)"), "not supported"},
		{func() SessionAggConfig {
			c := sessConfig(t, sessKTV, nil, 1, 10, "count(*)")
			c.Names = c.Names[1:]
			return c
		}(), "names"},
		{func() SessionAggConfig {
			c := sessConfig(t, sessKTV, nil, 1, 10, "sum(2)")
			c.Aggs[0].Type = types.DoubleT
			return c
		}(), "cannot return"},
	} {
		_, err := NewSessionWindowAgg(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	if _, err := NewSessionWindowAgg(sessConfig(t, sessKTV, nil, 1, 10, "approx_count_distinct(2)")); !errors.Is(err, accum.ErrNotSupported) {
		t.Errorf("got %v, want ErrAggNotSupported", err)
	}
}

func TestSessionLifecycle(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w, err := NewSessionWindowAgg(sessConfig(t, sessKTV, []int{0}, 1, 10, "count(*)"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := winChunk(t, alloc, sessKTV+"\n+I a 1 1")
	defer in.Batch.Release()
	discard := EmitterFunc(func(context.Context, Chunk) error { return nil })
	if err := w.Process(ctx, 0, in, discard); err == nil {
		t.Error("Process before Open succeeded")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening starts from empty state.
	for range 2 {
		if err := w.Open(ctx, NewTestEnv(alloc)); err != nil {
			t.Fatal(err)
		}
		out := newWinCollector(t)
		if err := w.Process(ctx, 0, in, out); err != nil {
			t.Fatal(err)
		}
		if got := out.take(); got != "+I a 1 11 1" {
			t.Errorf("got %q", got)
		}
		if err := w.Process(ctx, 1, in, out); err == nil {
			t.Error("Process of input 1 succeeded")
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.OnControl(ctx, Control{Kind: EndOfInput}, discard); err == nil {
		t.Error("OnControl after Close succeeded")
	}
}
