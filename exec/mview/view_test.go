package mview

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/rowset"
)

// kv are the columns of the test views: k BIGINT, v BIGINT.
var kv = []types.T{types.BigIntT, types.BigIntT}

// holds checks that mv holds exactly the rows of want, one per line, in
// any order.
func holds(t *testing.T, mv *View, want string) {
	t.Helper()
	var got []string
	for _, row := range mv.Snapshot() {
		got = append(got, exectest.FormatRow(row, kv, exectest.Text))
	}
	slices.Sort(got)
	if g, w := strings.Join(got, "\n"), exectest.Trim(want); g != w {
		t.Errorf("view holds\n%s\nwant\n%s", g, w)
	}
}

// TestSinkIntegratesChanges runs the Sink operator over a keyed view: it
// integrates inserts, updates and deletes, emits nothing, and reports the
// view's rows as its state.
func TestSinkIntegratesChanges(t *testing.T) {
	alloc := exectest.Alloc(t)
	mv := New([]string{"k", "v"}, kv, []int{0})
	env := exec.NewTestEnv(alloc)
	r := &exectest.Runner{Op: &Sink{MV: mv}, Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	r.Run(t, []exectest.Step{
		{In: `bigint bigint
			+I 1 10
			+I 2 20`,
			Check: func(t *testing.T) {
				holds(t, mv, "1 10\n2 20")
				if n := env.Metrics.StateKeys.Load(); n != 2 {
					t.Errorf("state keys %d, want 2", n)
				}
			}},
		{In: `bigint bigint
			-U 1 10
			+U 1 11
			-D 2 20`,
			Check: func(t *testing.T) {
				holds(t, mv, "1 11")
				if n := env.Metrics.StateKeys.Load(); n != 1 {
					t.Errorf("state keys %d, want 1", n)
				}
			}},
	})
}

// TestViewRejectsRetractionOfMissingRow checks that a retraction of a row
// the view does not hold is an error naming the row.
func TestViewRejectsRetractionOfMissingRow(t *testing.T) {
	alloc := exectest.Alloc(t)
	mv := New([]string{"k", "v"}, kv, []int{0})
	c := exectest.Chunk(t, alloc, "bigint bigint\n-D 9 9")
	defer c.Batch.Release()
	err := mv.Apply(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "retraction of a row the result does not hold: (9, 9)") {
		t.Fatalf("retraction of a missing row: %v", err)
	}
}

// TestViewMultisetWithoutKey checks that a view without a key keeps
// duplicate rows, and that a delete retracts one copy.
func TestViewMultisetWithoutKey(t *testing.T) {
	alloc := exectest.Alloc(t)
	mv := New([]string{"k", "v"}, kv, nil)
	r := &exectest.Runner{Op: &Sink{MV: mv}, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	r.Run(t, []exectest.Step{
		{In: "bigint bigint\n+I 1 1\n+I 1 1\n+I 2 2", Check: func(t *testing.T) { holds(t, mv, "1 1\n1 1\n2 2") }},
		{In: "bigint bigint\n-D 1 1", Check: func(t *testing.T) { holds(t, mv, "1 1\n2 2") }},
	})
}

// TestSubscriptionDeliversSnapshotThenChanges checks that a subscription
// reads the view's rows, then each change and control message in order,
// and that one made after the end reads the rows and the end.
func TestSubscriptionDeliversSnapshotThenChanges(t *testing.T) {
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	mv := New([]string{"k", "v"}, kv, []int{0})
	apply := func(text string) {
		t.Helper()
		c := exectest.Chunk(t, alloc, text)
		defer c.Batch.Release()
		if err := mv.Apply(ctx, c); err != nil {
			t.Error(err)
		}
	}
	apply("bigint bigint\n+I 1 10")
	sub := mv.Subscribe(alloc)
	defer sub.Close()
	out := exectest.NewCollector(t, exectest.CollectorOptions{KeyCols: 1})
	// next reads a message: a chunk goes to out, a control is returned.
	next := func(s *Subscription) exec.Control {
		t.Helper()
		ch, ctl, err := s.NextMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Batch != nil {
			out.Emit(ctx, ch)
			ch.Batch.Release()
		}
		return ctl
	}
	if ctl := next(sub); ctl.Kind != 0 || out.Take() != "+I 1 10" {
		t.Fatalf("snapshot: control %v", ctl)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		apply("bigint bigint\n-U 1 10\n+U 1 12")
		mv.Control(ctx, exec.Control{Kind: exec.Flush, FlushID: 3})
		mv.Control(ctx, exec.Control{Kind: exec.EndOfInput})
	}()
	if ctl := next(sub); ctl.Kind != 0 || out.Take() != "-U 1 10\n+U 1 12" {
		t.Fatalf("change: control %v", ctl)
	}
	if ctl := next(sub); ctl.Kind != exec.Flush || ctl.FlushID != 3 {
		t.Fatalf("flush: %v", ctl)
	}
	if ctl := next(sub); ctl.Kind != exec.EndOfInput {
		t.Fatalf("end: %v", ctl)
	}
	<-done
	if got := strings.Join(out.Rows(), "\n"); got != "1 12" {
		t.Errorf("the subscription integrates to %s, want 1 12", got)
	}

	// A subscription made after the end sees the rows and the end.
	late := mv.Subscribe(alloc)
	defer late.Close()
	snap, _, err := late.NextMessage(ctx)
	if err != nil || snap.NumRows() != 1 {
		t.Fatalf("late snapshot: %v", err)
	}
	snap.Batch.Release()
	if _, ctl, _ := late.NextMessage(ctx); ctl.Kind != exec.EndOfInput {
		t.Fatalf("late end: %v", ctl)
	}
	if _, _, err := late.NextMessage(ctx); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}

// TestSinkSnapshotsIncrementallyAndRestores: the view's Sink snapshots
// every row the first time, in one entry, then only what changed: one
// entry for the rows appended since, and one per older row whose count
// changed (gone included); a fresh view restored from the snapshots holds
// the same rows and goes on from them, its next snapshot holding only its
// change.
func TestSinkSnapshotsIncrementallyAndRestores(t *testing.T) {
	for _, c := range []struct {
		name string
		key  []int
	}{{"keyed", []int{0}}, {"multiset", nil}} {
		t.Run(c.name, func(t *testing.T) {
			alloc := exectest.Alloc(t)
			ctx := context.Background()
			state := exectest.NewState()
			mv := New([]string{"k", "v"}, kv, c.key)
			sink := &Sink{MV: mv}
			snapshot := func(puts, deletes int) func(t *testing.T) {
				return func(t *testing.T) {
					t.Helper()
					state.Snapshot(t, sink, 1)
					if state.Puts != puts || state.Deletes != deletes {
						t.Errorf("snapshot wrote %d puts and %d deletes, want %d and %d", state.Puts, state.Deletes, puts, deletes)
					}
				}
			}
			r := &exectest.Runner{Op: sink, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
			r.Run(t, []exectest.Step{
				{In: "bigint bigint\n+I 1 10\n+I 2 20\n+I 3 30", Check: snapshot(1, 0)},
				{In: "bigint bigint\n-U 1 10\n+U 1 11", Check: snapshot(2, 0)},
				{In: "bigint bigint\n-D 2 20", Check: snapshot(1, 0)},
				{In: "bigint bigint\n+I 4 40\n+I 4 40\n-D 4 40", Check: snapshot(1, 0)},
			})

			restored := New([]string{"k", "v"}, kv, c.key)
			rs := &Sink{MV: restored}
			env := exec.NewTestEnv(alloc)
			if err := rs.Open(ctx, env); err != nil {
				t.Fatal(err)
			}
			if err := rs.Restore(ctx, state, env.KeyGroups); err != nil {
				t.Fatal(err)
			}
			holds(t, restored, "1 11\n3 30\n4 40")
			if n := env.Metrics.StateKeys.Load(); n != 3 {
				t.Errorf("restored state keys %d, want 3", n)
			}
			// The restored view goes on: a retraction of a restored row,
			// and its next snapshot holds only that change.
			ch := exectest.Chunk(t, alloc, "bigint bigint\n-D 3 30")
			defer ch.Batch.Release()
			if err := rs.Process(ctx, 0, ch, exectest.NewCollector(t, exectest.CollectorOptions{})); err != nil {
				t.Fatal(err)
			}
			holds(t, restored, "1 11\n4 40")
			state.Reset()
			if err := rs.Snapshot(ctx, 2, state); err != nil || state.Puts != 1 || state.Deletes != 0 {
				t.Errorf("snapshot after restore: %v, %d puts, %d deletes", err, state.Puts, state.Deletes)
			}
		})
	}
}

// TestSinkRestoreReportsDamage: a damaged entry fails Restore with an
// error that says what it was restoring.
func TestSinkRestoreReportsDamage(t *testing.T) {
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	mv := New([]string{"k", "v"}, kv, []int{0})
	c := exectest.Chunk(t, alloc, "bigint bigint\n+I 1 10")
	defer c.Batch.Release()
	if err := mv.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	state := exectest.NewState()
	if err := mv.snapshot(0, state); err != nil {
		t.Fatal(err)
	}
	for _, damage := range [][]byte{{}, {1, 5}, {1, 0}, {1, 0, 2}, {1, 0, 2, 1}, {1, 0, 2, 2}} {
		state.Damage(damage)
		err := New([]string{"k", "v"}, kv, []int{0}).restore(ctx, state, exec.KeyGroupRange{Lo: 0, Hi: 1})
		if err == nil || !strings.Contains(err.Error(), "restoring a materialized view's rows: rowset: damaged row") {
			t.Errorf("%v: got %v", damage, err)
		}
	}
}

// TestRowEncodingRoundTrips: every kind of value, NULL included, comes
// back as it was encoded, and every truncation is refused.
func TestRowEncodingRoundTrips(t *testing.T) {
	ts := []types.T{types.BigIntT, types.DoubleT, types.DecimalT(20, 2), types.VarcharT, types.BoolT, types.TimestampT(3), types.VarcharT}
	alloc := exectest.Alloc(t)
	c := exectest.Chunk(t, alloc, "bigint double decimal(20,2) varchar boolean timestamp(3) varchar\n+I -7 -0.5 -12345.67 héllo true 1700000000123 ''\n+I NULL NULL NULL NULL NULL NULL x")
	defer c.Batch.Release()
	for _, row := range types.Rows(c.Batch, ts) {
		b := encodeRowForTest(ts, 3, row)
		count, got, err := decodeRowForTest(b, ts)
		if err != nil || count != 3 || exectest.FormatRow(got, ts, exectest.Text) != exectest.FormatRow(row, ts, exectest.Text) {
			t.Fatalf("decoded %d %v (%v), want 3 %v", count, got, err, row)
		}
		for n := range len(b) {
			if _, _, err := decodeRowForTest(b[:n], ts); err == nil {
				t.Errorf("a row cut to %d of %d bytes decoded", n, len(b))
			}
		}
	}
}

func encodeRowForTest(ts []types.T, count int64, row []types.Datum) []byte {
	return rowset.EncodeRow(nil, ts, count, row)
}

func decodeRowForTest(b []byte, ts []types.T) (int64, []types.Datum, error) {
	return rowset.DecodeRow(b, ts)
}
