package topn

import (
	"context"
	"errors"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/aggstate"
)

const partIn = "varchar bigint bigint\n" // partition, score, id

func TestPerPartition(t *testing.T) {
	// ROW_NUMBER() OVER (PARTITION BY c0 ORDER BY c1 DESC) <= 3.
	cfg := testConfig(t, "varchar bigint bigint", []int{0}, "1 desc", 3, false, false)
	runSteps(t, cfg, []exectest.Step{
		{In: partIn + "+I a 10 1\n+I a 20 2\n+I b 5 3\n+I a 30 4", Want: `
+I a 30 4
+I a 20 2
+I a 10 1
+I b 5 3`},
		// A better row pushes the third one out.
		{In: partIn + "+I a 25 5", Want: `
+I a 25 5
-D a 10 1`},
		// A row that cannot enter emits nothing, nor does its retraction.
		{In: partIn + "+I a 1 6", Want: ``},
		{In: partIn + "-D a 1 6", Want: ``},
		// Retracting a top row promotes the fourth.
		{In: partIn + "-D a 30 4", Want: `
-D a 30 4
+I a 10 1`},
		// A row entering and leaving within one chunk emits nothing.
		{In: partIn + "+I a 100 7\n+I b 1 8\n-D a 100 7", Want: `+I b 1 8`},
		// Several changes to one partition: only the net effect.
		{In: partIn + "+I a 40 9\n+I a 50 10\n-D a 40 9\n-U a 20 2\n+U a 21 2", Want: `
+I a 50 10
+I a 21 2
-D a 20 2
-D a 10 1`},
		// A partition that loses its last row, then comes back.
		{In: partIn + "-D b 5 3\n-D b 1 8", Want: `
-D b 5 3
-D b 1 8`},
		{In: partIn + "+I b 2 11", Want: `+I b 2 11`},
	}, nil)
}

func TestRowNumber(t *testing.T) {
	cfg := testConfig(t, "varchar bigint bigint", []int{0}, "1 desc", 3, true, false)
	runSteps(t, cfg, []exectest.Step{
		{In: partIn + "+I a 10 1\n+I a 20 2", Want: `
+I a 20 2 1
+I a 10 1 2`},
		// A new first row renumbers the others.
		{In: partIn + "+I a 30 3", Want: `
+I a 30 3 1
-U a 20 2 1
+U a 20 2 2
-U a 10 1 2
+U a 10 1 3`},
		{In: partIn + "+I a 25 4", Want: `
+I a 25 4 2
-U a 20 2 2
+U a 20 2 3
-D a 10 1 3`},
		// Retracting the first row moves the others up and promotes one.
		{In: partIn + "-D a 30 3", Want: `
-D a 30 3 1
-U a 25 4 2
+U a 25 4 1
-U a 20 2 3
+U a 20 2 2
+I a 10 1 3`},
		// A change below the top rows emits nothing.
		{In: partIn + "+I a 5 5\n+I b 1 6", Want: `+I b 1 6 1`},
		// An update that keeps the row's number replaces the row.
		{In: partIn + "-U a 20 2\n+U a 21 2", Want: `
+I a 21 2 2
-D a 20 2 2`},
	}, nil)
}

func TestTiesAndDuplicates(t *testing.T) {
	// Global ORDER BY c0 LIMIT 2: ties broken by c1, whatever the arrival
	// order.
	cfg := testConfig(t, "bigint varchar", nil, "0", 2, false, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint varchar\n+I 1 c\n+I 1 a\n+I 1 b", Want: `
+I 1 a
+I 1 b`},
		{In: "bigint varchar\n-D 1 a", Want: `
-D 1 a
+I 1 c`},
	}, nil)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint varchar\n+I 1 b", Want: `+I 1 b`},
		{In: "bigint varchar\n+I 1 c", Want: `+I 1 c`},
		{In: "bigint varchar\n+I 1 a", Want: `
+I 1 a
-D 1 c`},
	}, nil)
	// Identical rows count separately.
	cfg = testConfig(t, "bigint", nil, "0", 3, true, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint\n+I 5\n+I 5\n+I 5\n+I 5", Want: `
+I 5 1
+I 5 2
+I 5 3`},
		// A smaller row takes number 1: copies keep numbers 2 and 3.
		{In: "bigint\n+I 1", Want: `
+I 1 1
-D 5 1`},
		// One of four copies goes: the top rows do not change.
		{In: "bigint\n-D 5", Want: ``},
		// The copy numbered 3 goes, and one copy moves up.
		{In: "bigint\n-D 1\n-D 5", Want: `
-D 1 1
-U 5 3
+U 5 1`},
	}, nil)
	cfg = testConfig(t, "bigint", nil, "0", 3, false, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint\n+I 5\n+I 5\n+I 5\n+I 5", Want: "+I 5\n+I 5\n+I 5"},
		{In: "bigint\n+I 1\n+I 2", Want: "+I 1\n+I 2\n-D 5\n-D 5"},
		{In: "bigint\n-D 1", Want: "-D 1\n+I 5"},
	}, nil)
}

func TestDescAndNulls(t *testing.T) {
	// DESC puts NULL last ...
	cfg := testConfig(t, "bigint bigint", nil, "1 desc", 2, true, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 NULL\n+I 2 5\n+I 3 7", Want: `
+I 3 7 1
+I 2 5 2`},
		{In: "bigint bigint\n-D 3 7", Want: `
-D 3 7 1
-U 2 5 2
+U 2 5 1
+I 1 NULL 2`},
	}, nil)
	// ... and ASC first.
	cfg = testConfig(t, "bigint bigint", nil, "1", 1, true, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 2 5", Want: `+I 2 5 1`},
		{In: "bigint bigint\n+I 1 NULL", Want: `
+I 1 NULL 1
-D 2 5 1`},
	}, nil)
	// Every type, descending: NaN sorts before every number as in
	// types.Compare, so last here; the empty string before every other.
	input := "double varchar decimal(10,2) date timestamp(3) boolean null"
	cfg = testConfig(t, input, nil, "0 desc, 1 desc, 2 desc, 3 desc, 4 desc, 5 desc", 3, true, false)
	runSteps(t, cfg, []exectest.Step{
		{In: input + `
+I NaN a 1.50 2024-01-01 2024-01-01T00:00:00.001 true NULL
+I 2.5 '' -1.25 2024-02-29 2024-01-01T00:00:00 false NULL
+I 2.5 x 3.00 NULL NULL NULL NULL
+I -Inf b 0.00 1969-12-31 1970-01-01T00:00:00 true NULL`, Want: `
+I 2.5 x 3.00 NULL NULL NULL NULL 1
+I 2.5 '' -1.25 2024-02-29 2024-01-01 00:00:00.000 false NULL 2
+I -Infinity b 0.00 1969-12-31 1970-01-01 00:00:00.000 true NULL 3`},
	}, nil)
}

func TestLimitOneSlot(t *testing.T) {
	// With Limit 1 and no row number, a replaced row is an update of the
	// partition's slot, with or without retractions.
	cfg := testConfig(t, "bigint bigint", []int{0}, "1", 1, false, false)
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 5\n+I 2 3", Want: "+I 1 5\n+I 2 3"},
		{In: "bigint bigint\n+I 1 4\n+I 2 9", Want: "-U 1 5\n+U 1 4"},
		{In: "bigint bigint\n-D 1 4", Want: "-U 1 4\n+U 1 5"},
		{In: "bigint bigint\n-D 1 5", Want: "-D 1 5"},
	}, nil)
}

func TestAppendOnly(t *testing.T) {
	cfg := testConfig(t, "varchar bigint bigint", []int{0}, "1 desc", 2, true, true)
	bounded := func(step int, m *exec.OperatorMetrics) {
		if rows := m.StateKeys.Load(); rows > 2*2 {
			t.Fatalf("step %d: %d rows held, want at most 2 per partition", step, rows)
		}
		if m.StateBytes.Load() <= 0 {
			t.Fatalf("step %d: no state bytes", step)
		}
	}
	runSteps(t, cfg, []exectest.Step{
		{In: partIn + "+I a 10 1\n+I a 20 2\n+I a 5 3\n+I b 1 4", Want: `
+I a 20 2 1
+I a 10 1 2
+I b 1 4 1`},
		{In: partIn + "+I a 15 5\n+I a 3 6\n+I b 2 7\n+I b 0 8", Want: `
+I a 15 5 2
-D a 10 1 2
+I b 2 7 1
-U b 1 4 1
+U b 1 4 2`},
		// Rows entering and pushed out in the same chunk emit nothing.
		{In: partIn + "+I a 16 9\n+I a 17 10\n+I a 18 11", Want: `
+I a 18 11 2
-D a 15 5 2`},
		{In: partIn + "-D a 20 2", Err: errRetraction},
	}, bounded)
}

func TestDedup(t *testing.T) {
	const in = "bigint timestamp(3) varchar\n"
	// First row wins: ORDER BY time ASC keeps the first row of every key.
	cfg := testConfig(t, "bigint timestamp(3) varchar", []int{0}, "1", 1, false, true)
	one := func(step int, m *exec.OperatorMetrics) {
		if m.StateKeys.Load() > 2 {
			t.Fatalf("step %d: %d rows held for 2 keys", step, m.StateKeys.Load())
		}
	}
	runSteps(t, cfg, []exectest.Step{
		{In: in + "+I 1 2024-01-01T00:00:01 x\n+I 1 2024-01-01T00:00:02 y\n+I 2 2024-01-01T00:00:03 z", Want: `
+I 1 2024-01-01 00:00:01.000 x
+I 2 2024-01-01 00:00:03.000 z`},
		{In: in + "+I 1 2024-01-01T00:00:04 w\n+I 2 2024-01-01T00:00:05 v", Want: ``},
		{In: in + "-D 1 2024-01-01T00:00:01 x", Err: errRetraction},
	}, one)
	// Last row wins: ORDER BY time DESC replaces the row, as an update.
	cfg = testConfig(t, "bigint timestamp(3) varchar", []int{0}, "1 desc", 1, false, true)
	runSteps(t, cfg, []exectest.Step{
		{In: in + "+I 1 2024-01-01T00:00:01 x\n+I 1 2024-01-01T00:00:02 y", Want: `+I 1 2024-01-01 00:00:02.000 y`},
		{In: in + "+I 1 2024-01-01T00:00:04 w\n+I 1 2024-01-01T00:00:03 u\n+I 1 2024-01-01T00:00:05 v", Want: `
-U 1 2024-01-01 00:00:02.000 y
+U 1 2024-01-01 00:00:05.000 v`},
		// An older row changes nothing; a tie is broken by the other column.
		{In: in + "+I 1 2024-01-01T00:00:01 a\n+I 1 2024-01-01T00:00:05 b", Want: `
-U 1 2024-01-01 00:00:05.000 v
+U 1 2024-01-01 00:00:05.000 b`},
	}, one)
}

func TestNegativeCount(t *testing.T) {
	cfg := testConfig(t, "varchar bigint bigint", []int{0}, "1 desc", 3, false, false)
	runSteps(t, cfg, []exectest.Step{
		{In: partIn + "-D a 1 1", Err: aggstate.ErrNegativeCount},
	}, nil)
	runSteps(t, cfg, []exectest.Step{
		{In: partIn + "+I a 1 1", Want: `+I a 1 1`},
		// The same row in another partition was never inserted.
		{In: partIn + "-D b 1 1", Err: aggstate.ErrNegativeCount},
	}, nil)
	runSteps(t, cfg, []exectest.Step{
		// Retracting twice what was inserted once.
		{In: partIn + "+I a 1 1\n-D a 1 1\n-D a 1 1", Err: aggstate.ErrNegativeCount},
	}, nil)
}

func TestErrors(t *testing.T) {
	for _, cfg := range []Config{
		testConfig(t, "bigint", nil, "0", 0, false, false),
		testConfig(t, "bigint", []int{1}, "0", 1, false, false),
		testConfig(t, "bigint", nil, "2", 1, false, false),
		{Input: nil, Limit: 1},
		{Input: testConfig(t, "bigint", nil, "0", 1, false, false).Input, Limit: 1, RowNumber: true, Names: []string{"a"}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
	alloc := exectest.Alloc(t)
	op, err := New(testConfig(t, "bigint bigint", nil, "0", 1, false, false))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ch := exectest.Chunk(t, alloc, "bigint varchar\n+I 1 a")
	defer ch.Batch.Release()
	if err := op.Process(ctx, 0, ch, newCollector(t)); err == nil {
		t.Error("Process before Open: no error")
	}
	if err := op.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	if err := op.Process(ctx, 0, ch, newCollector(t)); err == nil {
		t.Error("a column of the wrong type: no error")
	}
	if err := op.Process(ctx, 1, ch, newCollector(t)); err == nil {
		t.Error("input 1: no error")
	}
	if err := op.OnControl(ctx, *exectest.Watermark(10), newCollector(t)); err != nil {
		t.Error(err)
	}
	if err := errors.Join(op.Close(), op.Close()); err != nil {
		t.Error(err)
	}
}
