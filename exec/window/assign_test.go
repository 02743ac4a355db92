package window

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// newAssign returns an Assign over "timestamp(3) bigint" (t, v).
func newAssign(t testing.TB, kind Kind, size, slide int64) *Assign {
	return NewAssign(AssignConfig{
		Input: exectest.Types(t, "timestamp(3) bigint"), TimeCol: 0, Kind: kind, Size: size, Slide: slide,
		Names: []string{"t", "v", "window_start", "window_end"},
	})
}

// runSteps runs steps through op with env, the output rendered with
// timestamps in ms, and returns the collector of the output.
func runSteps(t *testing.T, op exec.Operator, env *exec.Env, steps []exectest.Step) *exectest.Collector {
	t.Helper()
	r := &exectest.Runner{Op: op, Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})}
	r.Run(t, steps)
	return r.Out
}

func TestWindowTumble(t *testing.T) {
	alloc := exectest.Alloc(t)
	w := newAssign(t, Tumble, 10, 0)
	runSteps(t, w, exec.NewTestEnv(alloc), []exectest.Step{{
		In: `timestamp(3) bigint
			+I 0 1
			+I 9 2
			+I 10 3
			+I 25 4`,
		Want: `+I 0 1 0 10
			+I 9 2 0 10
			+I 10 3 10 20
			+I 25 4 20 30`,
	}, {
		// Before 1970, windows still start at multiples of the size.
		In: `timestamp(3) bigint
			+I -1 5
			+I -10 6
			+I -11 7`,
		Want: `+I -1 5 -10 0
			+I -10 6 -10 0
			+I -11 7 -20 -10`,
	}, {
		// NULL times belong to no window.
		In: `timestamp(3) bigint
			+I NULL 8
			+I 3 9
			+I NULL 10`,
		Want: `+I 3 9 0 10`,
		Check: func(t *testing.T) {
			if got := w.Dropped(); got != 2 {
				t.Errorf("Dropped() = %d, want 2", got)
			}
		},
	}, {
		In: `timestamp(3) bigint
			+I NULL 11`,
	}, {
		Ctl: exectest.Watermark(100),
	}})
	if got := w.Dropped(); got != 3 {
		t.Errorf("Dropped() = %d, want 3", got)
	}
	if f := w.Schema().Field(3); f.Name != "window_end" || f.Nullable {
		t.Errorf("window_end field = %v", f)
	}
}

// TestWindowAssignments checks the windows HOP and CUMULATE put rows in,
// and how updates travel through the windows.
func TestWindowAssignments(t *testing.T) {
	for _, tc := range []struct {
		name        string
		kind        Kind
		size, slide int64
		in, want    string
	}{
		// Size 10 is not a multiple of slide 4: rows are in 2 or 3 windows.
		{"hop", Hop, 10, 4, `+I 0 1
			+I 2 2
			+I 8 3
			+I -3 4
			+I NULL 5`,
			`+I 0 1 -8 2
			+I 0 1 -4 6
			+I 0 1 0 10
			+I 2 2 -4 6
			+I 2 2 0 10
			+I 8 3 0 10
			+I 8 3 4 14
			+I 8 3 8 18
			+I -3 4 -12 -2
			+I -3 4 -8 2
			+I -3 4 -4 6`},
		// Windows [0,5), [10,15), ...: a row at 7 is in none.
		{"hop-size-below-slide", Hop, 5, 10, `+I 4 1
			+I 7 2
			+I 10 3
			+I -6 4
			+I -4 5`,
			`+I 4 1 0 5
			+I 10 3 10 15
			+I -6 4 -10 -5`},
		{"cumulate", Cumulate, 15, 5, `+I 0 1
			+I 7 2
			+I 14 3
			+I 15 4
			+I -1 5
			+I -15 6`,
			`+I 0 1 0 5
			+I 0 1 0 10
			+I 0 1 0 15
			+I 7 2 0 10
			+I 7 2 0 15
			+I 14 3 0 15
			+I 15 4 15 20
			+I 15 4 15 25
			+I 15 4 15 30
			+I -1 5 -15 0
			+I -15 6 -15 -10
			+I -15 6 -15 -5
			+I -15 6 -15 0`},
		// An update whose halves share their windows stays an update per
		// window; one that moves the row to other windows becomes deletes and
		// inserts.
		{"hop-updates", Hop, 10, 5, `+I 7 1
			-U 7 1
			+U 7 2
			-U 7 2
			+U 12 2
			-D 12 2
			+I NULL 3
			-D NULL 3`,
			`+I 7 1 0 10
			+I 7 1 5 15
			-U 7 1 0 10
			+U 7 2 0 10
			-U 7 1 5 15
			+U 7 2 5 15
			-D 7 2 0 10
			-D 7 2 5 15
			+I 12 2 5 15
			+I 12 2 10 20
			-D 12 2 5 15
			-D 12 2 10 20`},
		// In a TUMBLE, an update within one window stays an update even when
		// its time changes.
		{"tumble-updates", Tumble, 10, 0, `+I 1 1
			-U 1 1
			+U 2 1
			-U 2 1
			+U 12 1
			+U 13 1`,
			`+I 1 1 0 10
			-U 1 1 0 10
			+U 2 1 0 10
			-D 2 1 0 10
			+I 12 1 10 20
			+I 13 1 10 20`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, newAssign(t, tc.kind, tc.size, tc.slide), exec.NewTestEnv(exectest.Alloc(t)),
				[]exectest.Step{{In: "timestamp(3) bigint\n" + tc.in, Want: tc.want}})
		})
	}
}

func TestWindowAssignPassesColumnsThrough(t *testing.T) {
	alloc := exectest.Alloc(t)
	w := NewAssign(AssignConfig{
		Input: exectest.Types(t, "varchar timestamp(3) decimal(5,2)"), TimeCol: 1, Kind: Tumble, Size: 1000,
		Names: []string{"s", "t", "d", "ws", "we"},
	})
	ctx := context.Background()
	if err := w.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := exectest.Chunk(t, alloc, `varchar timestamp(3) decimal(5,2)
		+I a 1500 1.25
		+I '' -1 NULL`)
	defer in.Batch.Release()
	var got []string
	err := w.Process(ctx, 0, in, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
		if c.Batch.Column(0) != in.Batch.Column(0) {
			t.Error("TUMBLE without NULL times copied an input column")
		}
		for _, row := range types.Rows(c.Batch, exectest.Types(t, "varchar timestamp(3) decimal(5,2) timestamp(3) timestamp(3)")) {
			got = append(got, exectest.FormatRow(row, exectest.Types(t, "varchar timestamp(3) decimal(5,2) timestamp(3) timestamp(3)"), exectest.Millis))
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := "a 1500 1.25 1000 2000|'' -1 NULL -1000 0"; strings.Join(got, "|") != want {
		t.Errorf("got %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestWindowAssignConfigErrors(t *testing.T) {
	ts := exectest.Types(t, "timestamp(3) bigint")
	names := []string{"t", "v", "ws", "we"}
	for _, tc := range []struct {
		cfg  AssignConfig
		want string
	}{
		{AssignConfig{Input: ts, TimeCol: 2, Kind: Tumble, Size: 1, Names: names}, "out of range"},
		{AssignConfig{Input: ts, TimeCol: 1, Kind: Tumble, Size: 1, Names: names}, "not TIMESTAMP"},
		{AssignConfig{Input: ts, Kind: Tumble, Size: 1, Names: names[:3]}, "3 names"},
		{AssignConfig{Input: ts, Kind: Tumble, Size: 0, Names: names}, "not positive"},
		{AssignConfig{Input: ts, Kind: Hop, Size: 10, Names: names}, "slide 0"},
		{AssignConfig{Input: ts, Kind: Cumulate, Size: 10, Slide: 3, Names: names}, "not a multiple"},
		{AssignConfig{Input: ts, Kind: Hop, Size: 1 << 20, Slide: 1, Names: names}, "exceeds the limit"},
		{AssignConfig{Input: ts, Kind: 9, Size: 10, Names: names}, "unknown window kind"},
	} {
		err := NewAssign(tc.cfg).Open(context.Background(), exec.NewTestEnv(memory.NewGoAllocator()))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}
