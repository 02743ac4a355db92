package mview

import (
	"context"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/exectest"
)

// TestUpsertViewReplacesRow checks that an upsert view replaces the row of
// a key inserted again (as a query with a state TTL does after evicting
// the key), that its subscribers see that as an update, and that a view
// not made upsert still counts the row twice.
func TestUpsertViewReplacesRow(t *testing.T) {
	alloc := exectest.Alloc(t)
	ctx := context.Background()
	apply := func(mv *View, text string) {
		t.Helper()
		c := exectest.Chunk(t, alloc, text)
		defer c.Batch.Release()
		if err := mv.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	mv := New([]string{"k", "v"}, kv, []int{0})
	mv.Upsert()
	apply(mv, "bigint bigint\n+I 1 10\n+I 2 20")
	sub := mv.Subscribe(alloc)
	defer sub.Close()
	out := exectest.NewCollector(t, exectest.CollectorOptions{KeyCols: 1})
	read := func() string {
		t.Helper()
		ch, _, err := sub.NextMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out.Emit(ctx, ch)
		ch.Batch.Release()
		return out.Take()
	}
	read() // the snapshot
	apply(mv, "bigint bigint\n+I 3 30\n+I 1 1\n-U 2 20\n+U 2 21")
	holds(t, mv, "1 1\n2 21\n3 30")
	if got := read(); got != "+I 3 30\n-U 1 10\n+U 1 1\n-U 2 20\n+U 2 21" {
		t.Fatalf("subscriber got\n%s", got)
	}
	// The new row is retracted and updated as any other.
	apply(mv, "bigint bigint\n-U 1 1\n+U 1 2")
	holds(t, mv, "1 2\n2 21\n3 30")
	read()
	if got := strings.Join(out.Rows(), "\n"); got != "1 2\n2 21\n3 30" {
		t.Fatalf("the subscription integrates to\n%s", got)
	}

	plain := New([]string{"k", "v"}, kv, []int{0})
	apply(plain, "bigint bigint\n+I 1 10")
	apply(plain, "bigint bigint\n+I 1 1")
	if n := len(plain.Snapshot()); n != 2 {
		t.Fatalf("a view that is not upsert holds %d rows, want the key twice", n)
	}
}
