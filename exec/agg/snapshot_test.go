package agg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
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

// TestSnapshotInStepsRandom runs two aggregates on the same random input
// over thousands of groups, one snapshotting at once, the other beginning
// its snapshots and writing them a few entries at a time while later
// chunks insert, retract (deleting groups) and create groups; after each
// snapshot the two states must be equal. Barriers come after rounds that
// dirty a few groups (the steps take the pending slots from the list of
// those changed) and after rounds that dirty many (they scan the bits in
// slot order); both kinds must occur.
func TestSnapshotInStepsRandom(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	clk := newFakeClock()
	at, atEnv, atOut := ttlAgg(t, clk)
	steps, env, out := ttlAgg(t, clk)
	atState, state := exectest.NewState(), exectest.NewState()
	const keys = 4000
	chunk := randomChunks(rng).chunk
	both := func(text string) {
		feed(t, at, atEnv, atOut, text)
		feed(t, steps, env, out, text)
	}
	both(chunk(3*keys, keys))
	atState.Snapshot(t, at, 1)
	state.Snapshot(t, steps, 1)
	defer func(d int) { bitsDensity = d }(bitsDensity)
	modes := map[bool]int{}
	for epoch := uint64(2); epoch < 40; epoch++ {
		// Every other round dirties a few groups, found by list (the
		// slots of 4,000 groups are too few for the density at which the
		// aggregate itself turns to the list: 0 makes it).
		bitsDensity = 512
		if epoch%2 == 0 {
			both(chunk(5, keys))
			bitsDensity = 0
		} else {
			both(chunk(keys, keys))
		}
		atState.Snapshot(t, at, epoch)
		pending, err := steps.BeginSnapshot(ctx, epoch, state)
		if err != nil || !pending {
			t.Fatalf("epoch %d: BeginSnapshot: pending %v, %v", epoch, pending, err)
		}
		modes[steps.pend.byBits]++
		for done := false; !done; {
			if done, err = steps.SnapshotStep(ctx, 1+rng.IntN(40)); err != nil {
				t.Fatal(err)
			}
			if !done && rng.IntN(2) == 0 {
				// The next round's rows, over more keys than there are
				// groups, so that groups are created too.
				text := chunk(1+rng.IntN(30), keys+keys/4)
				feed(t, at, atEnv, atOut, text)
				feed(t, steps, env, out, text)
			}
		}
		if diff := state.Diff(atState); diff != "" {
			t.Fatalf("epoch %d (by bits %v): the snapshot written in steps differs (-steps +at once):\n%s", epoch, steps.pend.byBits, diff)
		}
	}
	if modes[true] == 0 || modes[false] == 0 {
		t.Fatalf("snapshots found by bits and by list: %v, want both", modes)
	}
}

// randomRows makes random chunks of (bigint, bigint) rows, or (varchar,
// bigint) rows when strKeys is set, that insert values and retract some
// inserted before, never one not inserted.
type randomRows struct {
	rng     *rand.Rand
	rows    map[int64][]int64 // by key, the values inserted and not retracted
	strKeys bool              // keys are strings, "key-" and the number
}

func randomChunks(rng *rand.Rand) *randomRows {
	return &randomRows{rng: rng, rows: map[int64][]int64{}}
}

// chunk returns n rows over keys 0..span-1, in Chunk's text form.
func (r *randomRows) chunk(n, span int) string {
	var b strings.Builder
	key := "%d"
	if b.WriteString("bigint bigint"); r.strKeys {
		b.Reset()
		b.WriteString("varchar bigint")
		key = "key-%d"
	}
	for range n {
		k := int64(r.rng.IntN(span))
		if vs := r.rows[k]; len(vs) > 0 && r.rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "\n-D "+key+" %d", k, vs[len(vs)-1])
			r.rows[k] = vs[:len(vs)-1]
			continue
		}
		v := int64(r.rng.IntN(100))
		r.rows[k] = append(r.rows[k], v)
		fmt.Fprintf(&b, "\n+I "+key+" %d", k, v)
	}
	return b.String()
}

// forget forgets every row inserted so far, so that none is retracted
// (rows of groups the state TTL may have evicted).
func (r *randomRows) forget() { clear(r.rows) }
