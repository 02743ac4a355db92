package over

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

const inHeader = "varchar bigint bigint\n" // partition, order, value

func TestRowsPreceding(t *testing.T) {
	// SUM(c2) OVER (PARTITION BY c0 ORDER BY c1 ROWS 1 PRECEDING).
	cfg := config(t, "varchar bigint bigint", []int{0}, "1", plan.Frame{Kind: plan.FrameRows, Preceding: 1}, "sum 2")
	runSteps(t, cfg, []exectest.Step{
		{In: inHeader + "+I a 1 10\n+I a 2 20\n+I b 1 5", Want: `
+I a 1 10 10
+I a 2 20 30
+I b 1 5 5`},
		// A row at the end changes no other frame.
		{In: inHeader + "+I a 3 30", Want: `+I a 3 30 50`},
		// A row at the front enters the next row's frame.
		{In: inHeader + "+I a 0 1", Want: `
+I a 0 1 1
-U a 1 10 10
+U a 1 10 11`},
		// A retraction shifts the next row's frame back.
		{In: inHeader + "-D a 1 10", Want: `
-D a 1 10 11
-U a 2 20 30
+U a 2 20 21`},
		// An update moves a row: the old one leaves, the new one enters.
		{In: inHeader + "-U a 2 20\n+U a 2 25", Want: `
-D a 2 20 21
+I a 2 25 26
-U a 3 30 50
+U a 3 30 55`},
		// Changes that cancel within a chunk emit nothing.
		{In: inHeader + "+I a 9 9\n-D a 9 9", Want: ``},
		// A partition that loses its last row, then comes back.
		{In: inHeader + "-D b 1 5", Want: `-D b 1 5 5`},
		{In: inHeader + "+I b 2 7", Want: `+I b 2 7 7`},
	})
}

func TestTop1Updates(t *testing.T) {
	// q6's shape: AVG(c2) OVER (PARTITION BY c0 ORDER BY c1 ROWS 2
	// PRECEDING) over a Top-1 per auction, whose winning bid (c2, at time
	// c1) is replaced by higher ones.
	cfg := config(t, "bigint bigint bigint", []int{0}, "1", plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "avg 2, count *")
	in := "bigint bigint bigint\n"
	runSteps(t, cfg, []exectest.Step{
		{In: in + "+I 7 100 10\n+I 7 200 20\n+I 7 300 30\n+I 7 400 40", Want: `
+I 7 100 10 10 1
+I 7 200 20 15 2
+I 7 300 30 20 3
+I 7 400 40 30 3`},
		// The second auction's winner changes: a later, higher bid.
		{In: in + "-U 7 200 20\n+U 7 250 60", Want: `
-D 7 200 20 15 2
+I 7 250 60 35 2
-U 7 300 30 20 3
+U 7 300 30 33.333333333333336 3
-U 7 400 40 30 3
+U 7 400 40 43.333333333333336 3`},
		// An update that keeps every frame's values the same elsewhere.
		{In: in + "-U 7 400 40\n+U 7 400 41", Want: `
-D 7 400 40 43.333333333333336 3
+I 7 400 41 43.666666666666664 3`},
	})
}

func TestFrames(t *testing.T) {
	in := "bigint bigint bigint\n" // partition, order, value
	rows := in + "+I 1 1 10\n+I 1 2 20\n+I 1 2 30\n+I 1 3 40"
	// ROWS UNBOUNDED PRECEDING: ties numbered by the remaining columns. A
	// frame longer than any partition is the same.
	for _, frame := range []plan.Frame{{Kind: plan.FrameRowsUnbounded}, {Kind: plan.FrameRows, Preceding: math.MaxInt64}} {
		cfg := config(t, "bigint bigint bigint", []int{0}, "1", frame, "sum 2")
		for _, del := range []exectest.Step{{In: in + "-D 1 2 20", Want: `
-D 1 2 20 30
-U 1 2 30 60
+U 1 2 30 40
-U 1 3 40 100
+U 1 3 40 80`}, {In: in + "-D 1 1 10", Want: `
-D 1 1 10 10
-U 1 2 20 30
+U 1 2 20 20
-U 1 2 30 60
+U 1 2 30 50
-U 1 3 40 100
+U 1 3 40 90`}} {
			runSteps(t, cfg, []exectest.Step{{In: rows, Want: `
+I 1 1 10 10
+I 1 2 20 30
+I 1 2 30 60
+I 1 3 40 100`}, del})
		}
	}
	// RANGE UNBOUNDED PRECEDING (no frame clause): peers share a frame.
	cfg := config(t, "bigint bigint bigint", []int{0}, "1", plan.Frame{Kind: plan.FramePeers}, "sum 2")
	runSteps(t, cfg, []exectest.Step{
		{In: rows, Want: `
+I 1 1 10 10
+I 1 2 20 60
+I 1 2 30 60
+I 1 3 40 100`},
		// A new peer changes its peers' frames but not earlier rows'.
		{In: in + "+I 1 2 5", Want: `
+I 1 2 5 65
-U 1 2 20 60
+U 1 2 20 65
-U 1 2 30 60
+U 1 2 30 65
-U 1 3 40 100
+U 1 3 40 105`},
	})
	// The whole partition (no ORDER BY).
	cfg = config(t, "bigint bigint bigint", []int{0}, "", plan.Frame{Kind: plan.FramePartition}, "count *, max 2")
	runSteps(t, cfg, []exectest.Step{
		{In: rows + "\n+I 2 0 1", AnyOut: true},
		{In: in + "-D 1 3 40", Want: `
-U 1 1 10 4 40
+U 1 1 10 3 30
-U 1 2 20 4 40
+U 1 2 20 3 30
-U 1 2 30 4 40
+U 1 2 30 3 30
-D 1 3 40 4 40`},
	})
}

func TestDuplicatesAndNulls(t *testing.T) {
	// Identical rows count separately, each copy with its own frame; NULL
	// values are skipped (COUNT, SUM, MIN), and a frame of NULLs sums to
	// NULL.
	in := "bigint bigint\n" // order, value
	cfg := config(t, "bigint bigint", nil, "0 desc", plan.Frame{Kind: plan.FrameRows, Preceding: 1},
		"count 1, sum 1, min 1, count *")
	runSteps(t, cfg, []exectest.Step{
		{In: in + "+I 5 1\n+I 5 1\n+I 5 1", Want: `
+I 5 1 1 1 1 1
+I 5 1 2 2 1 2
+I 5 1 2 2 1 2`},
		// One copy goes: the outputs of the other two stay.
		{In: in + "-D 5 1", Want: `-D 5 1 2 2 1 2`},
		{In: in + "+I 9 NULL\n+I 1 NULL", Want: `
+I 9 NULL 0 NULL NULL 1
-U 5 1 1 1 1 1
+U 5 1 1 1 1 2
+I 1 NULL 1 1 1 2`},
	})
	// Strings: MIN and MAX over the frame.
	cfg = config(t, "bigint varchar", nil, "0", plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "min 1, max 1")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint varchar\n+I 1 m\n+I 2 a\n+I 3 z\n+I 4 b", Want: `
+I 1 m m m
+I 2 a a m
+I 3 z a z
+I 4 b a z`},
		{In: "bigint varchar\n-D 2 a", Want: `
-D 2 a a m
-U 3 z a z
+U 3 z m z
-U 4 b a z
+U 4 b b z`},
	})
}

func TestDoublesAndDecimals(t *testing.T) {
	cfg := config(t, "bigint double decimal(10,2)", nil, "0", plan.Frame{Kind: plan.FrameRows, Preceding: 1},
		"sum 1, avg 1, sum 2, avg 2")
	in := "bigint double decimal(10,2)\n"
	runSteps(t, cfg, []exectest.Step{
		{In: in + "+I 1 0.1 1.10\n+I 2 0.2 2.25\n+I 3 Inf 3.00", AnyOut: true},
		{In: in + "-D 2 0.2 2.25\n+I 4 NULL NULL", AnyOut: true},
		{In: in + "-D 3 Inf 3.00", AnyOut: true},
	})
}

func TestErrors(t *testing.T) {
	cfg := config(t, "varchar bigint bigint", []int{0}, "1", plan.Frame{Kind: plan.FrameRows, Preceding: 1}, "sum 2")
	runSteps(t, cfg, []exectest.Step{
		{In: inHeader + "+I a 1 10", AnyOut: true},
		{In: inHeader + "-D a 1 11", Err: aggstate.ErrNegativeCount},
	})
	runSteps(t, cfg, []exectest.Step{
		{In: inHeader + "+I a 1 9223372036854775807\n+I a 2 1", Err: accum.ErrOverflow},
	})
	bad := cfg
	bad.Aggs = []accum.Spec{{Func: plan.AggSum, Arg: 0, ArgType: types.VarcharT, Type: types.VarcharT}}
	if _, err := New(bad); !errors.Is(err, accum.ErrNotSupported) {
		t.Fatalf("SUM of a VARCHAR: got %v", err)
	}
	bad = cfg
	bad.Frame = plan.Frame{}
	if _, err := New(bad); err == nil {
		t.Fatal("no frame: no error")
	}
	bad = cfg
	bad.Names = bad.Names[:2]
	if _, err := New(bad); err == nil {
		t.Fatal("missing names: no error")
	}
	// A GROUPS frame re-evaluates only around the changed peer groups,
	// which a ranking function does not follow (the planner splits them).
	bad = withFuncs(t, cfg, "dense_rank")
	bad.Frame = plan.Frame{Kind: plan.FrameRows, Preceding: 1, Following: 1, Groups: true}
	if _, err := New(bad); err == nil {
		t.Fatal("DENSE_RANK with a GROUPS frame: no error")
	}
	// Close is safe without Open and twice; Process needs Open.
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	ch := exectest.Chunk(t, exectest.Alloc(t), inHeader+"+I a 1 1")
	defer ch.Batch.Release()
	if err := op.Process(context.Background(), 0, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err == nil {
		t.Fatal("Process before Open: no error")
	}
}
