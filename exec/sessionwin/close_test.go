package sessionwin

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
)

func TestSessionEmitOnClose(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)", "sum(2)")
	cfg.EmitOnClose = true
	w, env := newAgg(t, cfg)
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
	runSteps(t, w, env, []exectest.Step{{
		In: ktv + `
			+I a 0 1
			+I b 3 2
			+I a 5 3
			+I a 30 4
			+I b 31 5`,
		Check: gauge(4),
	}, {
		// b's [3,13) ends first, then a's [0,15).
		Ctl: exectest.Watermark(20),
		Want: `+I b 3 13 1 2
			+I a 0 15 2 4`,
		Check: gauge(2),
	}, {
		In: ktv + `
			+I a 35 6
			+I c 100 7`,
		Check: gauge(3),
	}, {
		// Nothing ends at or before 40 yet.
		Ctl:   exectest.Watermark(40),
		Check: gauge(3),
	}, {
		Ctl: exectest.Watermark(45),
		Want: `+I b 31 41 1 5
			+I a 30 45 2 10`,
		Check: gauge(1),
	}, {
		Ctl:   exectest.Control(exec.EndOfInput),
		Want:  `+I c 100 110 1 7`,
		Check: gauge(0),
	}})
}

func TestSessionRunningForgetsOnWatermark(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)")
	w, env := newAgg(t, cfg)
	keys := func(want int64) func(t *testing.T) {
		return func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != want {
				t.Errorf("StateKeys = %d, want %d", got, want)
			}
		}
	}
	out := runSteps(t, w, env, []exectest.Step{{
		In: ktv + `
			+I a 0 0
			+I b 0 0
			+I a 20 0`,
		Want: `+I a 0 10 1
			+I b 0 10 1
			+I a 20 30 1`,
		Check: keys(3),
	}, {
		Ctl: exectest.Watermark(10), Check: keys(1),
	}, {
		In: ktv + `
			+I a 25 0`,
		Want: `-U a 20 30 1
			+U a 20 35 2`,
		Check: keys(1),
	}, {
		Ctl: exectest.Control(exec.EndOfInput), Check: keys(0),
	}})
	if got, want := strings.Join(out.Rows(), "|"), "a 0 10 1|a 20 35 2|b 0 10 1"; got != want {
		t.Errorf("integrated output %q, want %q", got, want)
	}
	if got := env.Metrics.StateBytes.Load(); got < 0 {
		t.Errorf("StateBytes = %d after every session closed", got)
	}
}

func TestSessionDropsNullTimes(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)")
	w, env := newAgg(t, cfg)
	runSteps(t, w, env, []exectest.Step{{
		In: ktv + `
			+I a NULL 0
			+I a 3 0
			+I b NULL 0`,
		Want: `+I a 3 13 1`,
	}})
	if got := w.Dropped(); got != 2 {
		t.Errorf("Dropped() = %d, want 2", got)
	}
}

func TestSessionErrors(t *testing.T) {
	cfg := testConfig(t, ktv, []int{0}, 1, 10, "count(*)")
	runAgg(t, cfg, []exectest.Step{{
		In: ktv + `
			+I a 3 0
			-D a 3 0`,
		Err: ErrRetraction,
	}})
	sum := testConfig(t, ktv, nil, 1, 10, "sum(2)")
	runAgg(t, sum, []exectest.Step{{
		In: ktv + `
			+I a 1 9223372036854775807
			+I a 2 -9223372036854775808
			+I a 3 9223372036854775807`,
		Want: `+I 1 13 9223372036854775806`,
	}, {
		In: ktv + `
			+I a 4 9223372036854775807`,
		Err: accum.ErrOverflow,
	}})
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{testConfig(t, ktv, []int{0}, 2, 10), "not TIMESTAMP"},
		{testConfig(t, ktv, []int{0}, 1, 0), "gap 0"},
		{testConfig(t, ktv, []int{3}, 1, 10), "out of range"},
		{testConfig(t, ktv, nil, 1, 10, "approx_count_distinct(2)"), "not supported"},
		{testConfig(t, ktv, nil, 1, 10, "sum(0)"), "not supported"},
		{func() Config {
			c := testConfig(t, ktv, nil, 1, 10, "count(*)")
			c.Names = c.Names[1:]
			return c
		}(), "names"},
		{func() Config {
			c := testConfig(t, ktv, nil, 1, 10, "sum(2)")
			c.Aggs[0].Type = types.DoubleT
			return c
		}(), "cannot return"},
	} {
		_, err := NewAgg(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	if _, err := NewAgg(testConfig(t, ktv, nil, 1, 10, "approx_count_distinct(2)")); !errors.Is(err, accum.ErrNotSupported) {
		t.Errorf("got %v, want ErrAggNotSupported", err)
	}
}

func TestSessionLifecycle(t *testing.T) {
	alloc := exectest.Alloc(t)
	w, err := NewAgg(testConfig(t, ktv, []int{0}, 1, 10, "count(*)"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	in := exectest.Chunk(t, alloc, ktv+"\n+I a 1 1")
	defer in.Batch.Release()
	discard := exec.EmitterFunc(func(context.Context, exec.Chunk) error { return nil })
	if err := w.Process(ctx, 0, in, discard); err == nil {
		t.Error("Process before Open succeeded")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopening starts from empty state.
	for range 2 {
		if err := w.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
			t.Fatal(err)
		}
		out := exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})
		if err := w.Process(ctx, 0, in, out); err != nil {
			t.Fatal(err)
		}
		if got := out.Take(); got != "+I a 1 11 1" {
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
	if err := w.OnControl(ctx, exec.Control{Kind: exec.EndOfInput}, discard); err == nil {
		t.Error("OnControl after Close succeeded")
	}
}
