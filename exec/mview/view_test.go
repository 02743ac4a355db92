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
