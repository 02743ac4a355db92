package exec

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
)

// winAssign returns a WindowAssign over "timestamp(3) bigint" (t, v).
func winAssign(t testing.TB, kind WindowKind, size, slide int64) *WindowAssign {
	return NewWindowAssign(WindowAssignConfig{
		Input: winTypes(t, "timestamp(3) bigint"), TimeCol: 0, Kind: kind, Size: size, Slide: slide,
		Names: []string{"t", "v", "window_start", "window_end"},
	})
}

func TestWindowTumble(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w := winAssign(t, WindowTumble, 10, 0)
	winRun(t, w, NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 0 1
			+I 9 2
			+I 10 3
			+I 25 4`,
		want: `+I 0 1 0 10
			+I 9 2 0 10
			+I 10 3 10 20
			+I 25 4 20 30`,
	}, {
		// Before 1970, windows still start at multiples of the size.
		in: `timestamp(3) bigint
			+I -1 5
			+I -10 6
			+I -11 7`,
		want: `+I -1 5 -10 0
			+I -10 6 -10 0
			+I -11 7 -20 -10`,
	}, {
		// NULL times belong to no window.
		in: `timestamp(3) bigint
			+I NULL 8
			+I 3 9
			+I NULL 10`,
		want: `+I 3 9 0 10`,
		check: func(t *testing.T) {
			if got := w.Dropped(); got != 2 {
				t.Errorf("Dropped() = %d, want 2", got)
			}
		},
	}, {
		in: `timestamp(3) bigint
			+I NULL 11`,
	}, {
		ctl: Watermark, wm: 100,
	}})
	if got := w.Dropped(); got != 3 {
		t.Errorf("Dropped() = %d, want 3", got)
	}
	if f := w.Schema().Field(3); f.Name != "window_end" || f.Nullable {
		t.Errorf("window_end field = %v", f)
	}
}

func TestWindowHop(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// Size 10 is not a multiple of slide 4: rows are in 2 or 3 windows.
	winRun(t, winAssign(t, WindowHop, 10, 4), NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 0 1
			+I 2 2
			+I 8 3
			+I -3 4
			+I NULL 5`,
		want: `+I 0 1 -8 2
			+I 0 1 -4 6
			+I 0 1 0 10
			+I 2 2 -4 6
			+I 2 2 0 10
			+I 8 3 0 10
			+I 8 3 4 14
			+I 8 3 8 18
			+I -3 4 -12 -2
			+I -3 4 -8 2
			+I -3 4 -4 6`,
	}})
}

func TestWindowHopSizeBelowSlide(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// Windows [0,5), [10,15), ...: a row at 7 is in none.
	winRun(t, winAssign(t, WindowHop, 5, 10), NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 4 1
			+I 7 2
			+I 10 3
			+I -6 4
			+I -4 5`,
		want: `+I 4 1 0 5
			+I 10 3 10 15
			+I -6 4 -10 -5`,
	}})
}

func TestWindowCumulate(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	winRun(t, winAssign(t, WindowCumulate, 15, 5), NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 0 1
			+I 7 2
			+I 14 3
			+I 15 4
			+I -1 5
			+I -15 6`,
		want: `+I 0 1 0 5
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
			+I -15 6 -15 0`,
	}})
}

func TestWindowRetractions(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	// An update whose halves share their windows stays an update per
	// window; one that moves the row to other windows becomes deletes and
	// inserts.
	winRun(t, winAssign(t, WindowHop, 10, 5), NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 7 1
			-U 7 1
			+U 7 2
			-U 7 2
			+U 12 2
			-D 12 2
			+I NULL 3
			-D NULL 3`,
		want: `+I 7 1 0 10
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
			-D 12 2 10 20`,
	}})
	// In a TUMBLE, an update within one window stays an update even when
	// its time changes.
	winRun(t, winAssign(t, WindowTumble, 10, 0), NewTestEnv(alloc), []winStep{{
		in: `timestamp(3) bigint
			+I 1 1
			-U 1 1
			+U 2 1
			-U 2 1
			+U 12 1
			+U 13 1`,
		want: `+I 1 1 0 10
			-U 1 1 0 10
			+U 2 1 0 10
			-D 2 1 0 10
			+I 12 1 10 20
			+I 13 1 10 20`,
	}})
}

func TestWindowAssignPassesColumnsThrough(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	w := NewWindowAssign(WindowAssignConfig{
		Input: winTypes(t, "varchar timestamp(3) decimal(5,2)"), TimeCol: 1, Kind: WindowTumble, Size: 1000,
		Names: []string{"s", "t", "d", "ws", "we"},
	})
	ctx := context.Background()
	if err := w.Open(ctx, NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := winChunk(t, alloc, `varchar timestamp(3) decimal(5,2)
		+I a 1500 1.25
		+I '' -1 NULL`)
	defer in.Batch.Release()
	var got []string
	err := w.Process(ctx, 0, in, EmitterFunc(func(_ context.Context, c Chunk) error {
		if c.Batch.Column(0) != in.Batch.Column(0) {
			t.Error("TUMBLE without NULL times copied an input column")
		}
		for _, row := range types.Rows(c.Batch, winTypes(t, "varchar timestamp(3) decimal(5,2) timestamp(3) timestamp(3)")) {
			got = append(got, winFormatRow(row, winTypes(t, "varchar timestamp(3) decimal(5,2) timestamp(3) timestamp(3)")))
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
	ts := winTypes(t, "timestamp(3) bigint")
	names := []string{"t", "v", "ws", "we"}
	for _, tc := range []struct {
		cfg  WindowAssignConfig
		want string
	}{
		{WindowAssignConfig{Input: ts, TimeCol: 2, Kind: WindowTumble, Size: 1, Names: names}, "out of range"},
		{WindowAssignConfig{Input: ts, TimeCol: 1, Kind: WindowTumble, Size: 1, Names: names}, "not TIMESTAMP"},
		{WindowAssignConfig{Input: ts, Kind: WindowTumble, Size: 1, Names: names[:3]}, "3 names"},
		{WindowAssignConfig{Input: ts, Kind: WindowTumble, Size: 0, Names: names}, "not positive"},
		{WindowAssignConfig{Input: ts, Kind: WindowHop, Size: 10, Names: names}, "slide 0"},
		{WindowAssignConfig{Input: ts, Kind: WindowCumulate, Size: 10, Slide: 3, Names: names}, "not a multiple"},
		{WindowAssignConfig{Input: ts, Kind: WindowHop, Size: 1 << 20, Slide: 1, Names: names}, "exceeds the limit"},
		{WindowAssignConfig{Input: ts, Kind: 9, Size: 10, Names: names}, "unknown window kind"},
	} {
		err := NewWindowAssign(tc.cfg).Open(context.Background(), NewTestEnv(memory.NewGoAllocator()))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}
