package agg

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// closeConfig is COUNT(*) and SUM(v) grouped by the columns keys of an
// input of types header, closing on group key closeKey.
func closeConfig(t *testing.T, header string, keys []int, v int, close WindowClose, appendOnly bool) HashConfig {
	t.Helper()
	in := exectest.Types(t, header)
	cfg := HashConfig{Input: in, GroupKeys: keys, AppendOnly: appendOnly, Close: &close}
	for _, k := range keys {
		cfg.Names = append(cfg.Names, fmt.Sprintf("k%d", k))
	}
	cfg.Aggs = []accum.Spec{
		{Func: plan.AggCountStar, Arg: -1, Type: types.BigIntT},
		{Func: plan.AggSum, Arg: v, ArgType: in[v], Type: plan.AggResultType(plan.AggSum, in[v])},
	}
	cfg.Names = append(cfg.Names, "n", "s")
	return cfg
}

func TestHashAggEmitOnWindowClose(t *testing.T) {
	const in = "varchar timestamp(3) bigint"
	cfg := closeConfig(t, in, []int{0, 1}, 2, WindowClose{Key: 1, Emit: true}, false)
	alloc := exectest.Alloc(t)
	env := exec.NewTestEnv(alloc)
	keys := func(n int64) func(t *testing.T) {
		return func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != n {
				t.Errorf("StateKeys = %d, want %d", got, n)
			}
		}
	}
	runOp(t, NewHashAgg(cfg), env, []exectest.Step{{
		In: in + `
			+I a 10 1
			+I b 10 2
			+I a 20 3
			+I c 10 9
			-D c 10 9`,
		Check: keys(3),
	}, {
		Ctl: exectest.Watermark(9), Check: keys(3),
	}, {
		// Windows ending at 10 close: each is emitted once, as an insert.
		Ctl: exectest.Watermark(10),
		Want: `+I a 10 1 1
			+I b 10 1 2`,
		Check: keys(1),
	}, {
		// A row for a closed window is late: dropped and counted.
		In: in + `
			+I a 10 5
			+I a 20 4
			-D a 20 3`,
		Check: func(t *testing.T) {
			keys(1)(t)
			if got := env.Metrics.LateRows.Load(); got != 1 {
				t.Errorf("LateRows = %d, want 1", got)
			}
		},
	}, {
		Ctl:   exectest.Control(exec.EndOfInput),
		Want:  `+I a 20 1 4`,
		Check: keys(0),
	}})
}

// TestHashAggRunningWindowClose checks that in running mode (append-only
// input) closing a window frees its groups without emitting anything, and
// that an integer key closing at key + offset (window_start + size) works.
func TestHashAggRunningWindowClose(t *testing.T) {
	const in = "timestamp(3) bigint"
	cfg := closeConfig(t, in, []int{0}, 1, WindowClose{Key: 0, Offset: 5}, true)
	alloc := exectest.Alloc(t)
	env := exec.NewTestEnv(alloc)
	runOp(t, NewHashAgg(cfg), env, []exectest.Step{{
		In: in + `
			+I 0 1
			+I 5 2`,
		Want: `+I 0 1 1
			+I 5 1 2`,
	}, {
		Ctl: exectest.Watermark(5),
		Check: func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != 1 {
				t.Errorf("StateKeys = %d, want 1", got)
			}
		},
	}, {
		In: in + `
			+I 5 3`,
		Want: `-U 5 1 2
			+U 5 2 5`,
	}})
}

// TestHashAggRunningChangesFollowWatermark checks the promise the planner
// makes of a running windowed aggregate's window_end (plan.Props.TimeCols,
// on which interval joins free their state): after watermark W it emits no
// change of a window ending at W or before — a row for one is late, even
// exactly at the boundary — only of windows ending after W.
func TestHashAggRunningChangesFollowWatermark(t *testing.T) {
	const in = "timestamp(3) bigint"
	cfg := closeConfig(t, in, []int{0}, 1, WindowClose{Key: 0}, true)
	env := exec.NewTestEnv(exectest.Alloc(t))
	runOp(t, NewHashAgg(cfg), env, []exectest.Step{{
		In: in + `
			+I 10 1
			+I 20 2`,
		Want: `+I 10 1 1
			+I 20 1 2`,
	}, {
		Ctl: exectest.Watermark(10),
	}, {
		In: in + `
			+I 10 3
			+I 11 4
			+I 20 5`,
		Want: `+I 11 1 4
			-U 20 1 2
			+U 20 2 7`,
		Check: func(t *testing.T) {
			if got := env.Metrics.LateRows.Load(); got != 1 {
				t.Errorf("LateRows = %d, want 1 (the row of the window ending at the watermark)", got)
			}
		},
	}})
}

// TestHashAggWindowCloseSlotReuse checks that a slot freed by a retraction
// and reused by a group of another window does not close with the old
// window, and that a closing larger than a chunk is emitted whole.
func TestHashAggWindowCloseSlotReuse(t *testing.T) {
	const in = "bigint timestamp(3) bigint"
	cfg := closeConfig(t, in, []int{0, 1}, 2, WindowClose{Key: 1, Emit: true}, false)
	alloc := exectest.Alloc(t)
	env := exec.NewTestEnv(alloc)
	var many, closed strings.Builder
	many.WriteString(in + "\n")
	for k := range closeChunk + 10 {
		fmt.Fprintf(&many, "+I %d 30 1\n", k+100)
		fmt.Fprintf(&closed, "+I %d 30 1 1\n", k+100)
	}
	out := runOp(t, NewHashAgg(cfg), env, []exectest.Step{{
		In: in + `
			+I 1 10 1
			-D 1 10 1`,
	}, {
		In: in + `
			+I 2 20 7`,
	}, {
		Ctl: exectest.Watermark(10),
	}, {
		Ctl: exectest.Watermark(20), Want: `+I 2 20 1 7`,
	}, {
		In: many.String(),
	}, {
		Ctl: exectest.Watermark(30), Want: closed.String(),
		Check: func(t *testing.T) {
			if got := env.Metrics.StateKeys.Load(); got != 0 {
				t.Errorf("StateKeys = %d, want 0", got)
			}
		},
	}})
	if got, want := len(out.Rows()), closeChunk+10+1; got != want {
		t.Errorf("%d rows emitted in all, want %d", got, want)
	}
}

func TestHashAggWindowCloseConfig(t *testing.T) {
	cfg := closeConfig(t, "varchar timestamp(3) bigint", []int{0, 1}, 2, WindowClose{Key: 0, Emit: true}, false)
	h := NewHashAgg(cfg)
	if err := h.Open(t.Context(), exec.NewTestEnv(memory.NewGoAllocator())); err == nil || !strings.Contains(err.Error(), "window close key") {
		t.Fatalf("Open with a VARCHAR close key: %v", err)
	}
}

// TestCloserRelisting checks that a group retracted and created again
// in the same window, over and over, is listed once, and closes once.
func TestCloserRelisting(t *testing.T) {
	c := newCloser(WindowClose{Key: 0}, 0)
	c.vals = []int64{10, 20}
	for range 100 {
		c.add(3, 0)
		c.forget(3)
	}
	c.add(3, 0)
	c.add(4, 1)
	if c.listN != 2 {
		t.Fatalf("%d entries listed, want 2", c.listN)
	}
	if got := c.due(10, nil); len(got) != 1 || got[0] != 3 {
		t.Fatalf("due(10) = %v, want [3]", got)
	}
	// Slot 3 is reused by a group of the window at 20: listed again.
	c.add(3, 1)
	if got := c.due(20, nil); len(got) != 2 || c.listN != 0 {
		t.Fatalf("due(20) = %v with %d entries left, want slots 4 and 3 and none", got, c.listN)
	}
}
