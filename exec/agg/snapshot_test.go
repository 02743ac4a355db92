package agg

import (
	"context"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/exectest"
)

// TestSnapshotInStepsCopiesOnWrite checks that a snapshot begun at a
// barrier and written a step of one entry at a time, while later chunks
// change pending groups, delete them, create new groups (one deleted
// before the barrier and created again), and the state TTL evicts a
// pending group, writes exactly the entries of a snapshot taken at once
// at the barrier by an aggregate fed the same input.
func TestSnapshotInStepsCopiesOnWrite(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	at, atEnv, atOut := ttlAgg(t, clk) // snapshots at once
	steps, env, out := ttlAgg(t, clk)  // snapshots in steps
	atState, state := exectest.NewState(), exectest.NewState()
	both := func(text string) {
		feed(t, at, atEnv, atOut, text)
		feed(t, steps, env, out, text)
	}
	both("bigint bigint\n+I 1 10\n+I 2 20\n+I 3 30\n+I 4 40\n+I 5 50\n+I 6 60")
	atState.Snapshot(t, at, 1)
	state.Snapshot(t, steps, 1)
	clk.advance(time.Second)
	// Dirty at the barrier: 1 (changed), 3 (deleted), 7 (new).
	both("bigint bigint\n+I 1 5\n-D 3 30\n+I 7 70")
	atState.Snapshot(t, at, 2)
	pending, err := steps.BeginSnapshot(ctx, 2, state)
	if err != nil || !pending {
		t.Fatalf("BeginSnapshot: pending %v, %v; want pending", pending, err)
	}
	step := func() bool {
		t.Helper()
		done, err := steps.SnapshotStep(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		return done
	}
	step() // the deletion of 3
	clk.advance(500 * time.Millisecond)
	feed(t, steps, env, out, "bigint bigint\n+I 1 100")         // a pending group changed
	feed(t, steps, env, out, "bigint bigint\n-D 2 20")          // a group deleted after the barrier
	feed(t, steps, env, out, "bigint bigint\n+I 3 33\n+I 8 80") // 3 created again, 8 new
	// 7, pending and idle since, is evicted; so are 4, 5 and 6.
	clk.advance(1300 * time.Millisecond)
	tick(t, steps, clk, out)
	if n := env.Metrics.Counter(evictedCounter).Load(); n != 4 {
		t.Fatalf("%d groups evicted, want 4, 5, 6 and 7", n)
	}
	for !step() {
		feed(t, steps, env, out, "bigint bigint\n+I 9 90\n+I 1 1")
	}
	if diff := state.Diff(atState); diff != "" {
		t.Fatalf("the snapshot written in steps differs from the one at once (-steps +at once):\n%s", diff)
	}
	if done, err := steps.SnapshotStep(ctx, 1); !done || err != nil {
		t.Fatalf("a step without a pending snapshot: done %v, %v", done, err)
	}
}

// TestSnapshotFinishesThePendingOne checks that a snapshot taken, at once
// or begun, while one is pending first writes the rest of that one, so
// that the entries are those of the two snapshots in order; and that a
// snapshot with nothing changed is not pending.
func TestSnapshotFinishesThePendingOne(t *testing.T) {
	ctx := context.Background()
	for _, begin := range []bool{false, true} {
		clk := newFakeClock()
		at, atEnv, atOut := ttlAgg(t, clk)
		steps, env, out := ttlAgg(t, clk)
		atState, state := exectest.NewState(), exectest.NewState()
		both := func(text string) {
			feed(t, at, atEnv, atOut, text)
			feed(t, steps, env, out, text)
		}
		both("bigint bigint\n+I 1 10\n+I 2 20\n+I 3 30")
		atState.Snapshot(t, at, 1)
		if pending, err := steps.BeginSnapshot(ctx, 1, state); err != nil || !pending {
			t.Fatalf("BeginSnapshot: pending %v, %v; want pending", pending, err)
		}
		both("bigint bigint\n+I 1 1\n-D 2 20\n+I 4 40")
		atState.Snapshot(t, at, 2)
		if begin {
			pending, err := steps.BeginSnapshot(ctx, 2, state)
			if err != nil || !pending {
				t.Fatalf("BeginSnapshot: pending %v, %v; want pending", pending, err)
			}
			for done := false; !done; {
				if done, err = steps.SnapshotStep(ctx, 1); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			state.Snapshot(t, steps, 2)
		}
		if diff := state.Diff(atState); diff != "" {
			t.Fatalf("begin %v: two snapshots differ (-steps +at once):\n%s", begin, diff)
		}
		if pending, err := steps.BeginSnapshot(ctx, 3, state); err != nil || pending {
			t.Fatalf("a snapshot of nothing changed: pending %v, %v", pending, err)
		}
	}
}
