package over

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRestoreContinuesTheRun snapshots window aggregates of every frame at
// random steps of a random changelog (inserts, retractions, updates,
// identical rows) and checks that instances restored from the last
// snapshot at parallelism 1, 2 and 3 continue exactly as the uninterrupted
// run: the same rows at every step, the same integral.
func TestRestoreContinuesTheRun(t *testing.T) {
	frames := []plan.Frame{
		{Kind: plan.FrameRows, Preceding: 2},
		{Kind: plan.FrameRowsUnbounded},
		{Kind: plan.FramePeers},
		{Kind: plan.FramePartition},
	}
	const input = "bigint bigint bigint double varchar"
	aggs := "count *, sum 2, avg 3, min 4, max 3, sum 3"
	for seed := int64(1); seed <= 6; seed++ {
		for _, f := range frames {
			part := []int{0}
			if seed%3 == 0 {
				part = nil
			}
			order := "1 desc"
			if f.Kind == plan.FramePartition {
				order = ""
			}
			t.Run(fmt.Sprintf("seed=%d/%s/partitioned=%t", seed, f, part != nil), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				cfg := config(t, input, part, order, f, aggs)
				steps := randomSteps(rng, 30, 8, 5)
				var snaps []int
				for k := range 18 {
					if rng.Intn(5) == 0 {
						snaps = append(snaps, k)
					}
				}
				snaps = append(snaps, 18+rng.Intn(6))
				exectest.CheckRestore(t, exectest.Restore{
					New: func() exec.Operator {
						op, err := New(cfg)
						if err != nil {
							t.Fatal(err)
						}
						return op
					},
					Steps: steps, Keys: part, Snapshots: snaps,
					Options: exectest.CollectorOptions{Minimal: true, Exact: true},
				})
			})
		}
	}
}

// TestRestoreKeepsValues checks that a restored row keeps the values the
// output showed, not those its keys encode: -0 sorts as 0, and the row
// that came first holds it.
func TestRestoreKeepsValues(t *testing.T) {
	cfg := config(t, "bigint double", []int{0}, "1", plan.Frame{Kind: plan.FrameRowsUnbounded}, "count *")
	state := exectest.NewState()
	op, _ := New(cfg)
	out := exectest.NewCollector(t, exectest.CollectorOptions{Exact: true})
	alloc := exectest.Alloc(t)
	(&exectest.Runner{Op: op, Env: exec.NewTestEnv(alloc), Out: out}).Run(t, []exectest.Step{{
		In:    "bigint double\n+I 1 -0\n+I 1 0",
		Want:  "+I 1 -0 1\n+I 1 -0 2",
		Check: func(t *testing.T) { state.Snapshot(t, op, 1) },
	}})
	op, _ = New(cfg)
	(&exectest.Runner{Op: &restoring{Agg: op, state: state}, Env: exec.NewTestEnv(alloc), Out: out}).Run(t, []exectest.Step{{
		In:   "bigint double\n+I 1 -1",
		Want: "+I 1 -1 1\n-U 1 -0 1\n+U 1 -0 3",
	}})
}

// TestSnapshotIsIncremental checks that a snapshot writes only the rows
// that changed, whatever the size of their partitions: with 10,000 rows in
// 1,000 partitions or in one, changing 1% of them (80 inserted, 20
// retracted) writes 80 puts and 20 deletes, about 1% of the bytes of the
// full snapshot.
func TestSnapshotIsIncremental(t *testing.T) {
	for _, parts := range []int{1000, 1} {
		t.Run(fmt.Sprintf("partitions=%d", parts), func(t *testing.T) {
			const input = "bigint bigint bigint varchar"
			cfg := config(t, input, []int{0}, "1", plan.Frame{Kind: plan.FrameRows, Preceding: 2}, "sum 2, count *")
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			env := exec.NewTestEnv(exectest.Alloc(t))
			ctx := context.Background()
			if err := op.Open(ctx, env); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			feed := func(lines []string) {
				t.Helper()
				ch := exectest.Chunk(t, env.Alloc, input+"\n"+strings.Join(lines, "\n"))
				defer ch.Batch.Release()
				if err := op.Process(ctx, 0, ch, exec.EmitterFunc(func(_ context.Context, c exec.Chunk) error {
					c.Batch.Release()
					return nil
				})); err != nil {
					t.Fatal(err)
				}
			}
			const rows = 10000
			row := func(r int) string { return fmt.Sprintf("%d %d %d name%05d", r%parts, r, r%13, r) }
			var lines []string
			for r := range rows {
				lines = append(lines, "+I "+row(r))
			}
			for lo := 0; lo < rows; lo += 1000 {
				feed(lines[lo : lo+1000])
			}
			state := exectest.NewState()
			state.Snapshot(t, op, 1)
			full := state.Bytes
			if state.Puts != rows || state.Deletes != 0 || state.Len() != rows {
				t.Fatalf("first snapshot: %d puts, %d deletes, %d entries; want %d puts", state.Puts, state.Deletes, state.Len(), rows)
			}
			state.Snapshot(t, op, 2)
			if state.Puts != 0 || state.Deletes != 0 {
				t.Fatalf("snapshot of no change: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			lines = lines[:0]
			for r := 0; r < rows; r += 100 {
				if r%500 == 0 {
					lines = append(lines, "-D "+row(r))
				} else {
					lines = append(lines, "+I "+row(rows+r))
				}
			}
			feed(lines)
			state.Snapshot(t, op, 3)
			if state.Puts != 80 || state.Deletes != 20 || state.Len() != rows+60 {
				t.Fatalf("snapshot of 1%%: %d puts, %d deletes, %d entries; want 80, 20, %d", state.Puts, state.Deletes, state.Len(), rows+60)
			}
			t.Logf("full snapshot %d bytes (%d per row), 1%% of the rows %d bytes", full, full/rows, state.Bytes)
			if state.Bytes*100 > 2*full {
				t.Fatalf("snapshot of 1%% wrote %d bytes, the full one %d", state.Bytes, full)
			}
		})
	}
}

// TestRestoreRefusesDamagedState checks that a damaged entry (truncated,
// trailing bytes, values that are not its key's, a row in another key
// group, garbage) makes Restore fail with an error of the operator, and
// that a snapshot before Open fails instead of panicking.
func TestRestoreRefusesDamagedState(t *testing.T) {
	cfg := config(t, "bigint bigint varchar", []int{0}, "1", plan.Frame{Kind: plan.FrameRowsUnbounded}, "count *")
	ctx := context.Background()
	op, _ := New(cfg)
	if err := op.Snapshot(ctx, 1, exectest.NewState()); err == nil {
		t.Fatal("snapshot before Open succeeded")
	}
	alloc := exectest.Alloc(t)
	state := exectest.NewState()
	(&exectest.Runner{Op: op, Env: exec.NewTestEnv(alloc), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, []exectest.Step{{
		In:     "bigint bigint varchar\n+I 1 5 a\n+I 1 5 a\n+I 1 6 b",
		AnyOut: true,
		Check:  func(t *testing.T) { state.Snapshot(t, op, 1) },
	}})
	if state.Len() != 2 {
		t.Fatalf("%d entries, want 2", state.Len())
	}
	var g int
	var keys []string
	for g = range state.Entries {
		keys = slices.Sorted(maps.Keys(state.Entries[g]))
	}
	key, other := keys[0], keys[1]
	good := state.Entries[g][key]
	for _, tc := range []struct {
		name string
		edit func()
	}{
		{"truncated", func() { state.Entries[g][key] = good[:len(good)-1] }},
		{"trailing", func() { state.Entries[g][key] = append(slices.Clone(good), 0) }},
		{"not the key's values", func() { state.Entries[g][key] = state.Entries[g][other] }},
		{"bad key", func() { delete(state.Entries[g], key); state.Entries[g]["\x7f"] = good }},
		{"other key group", func() {
			delete(state.Entries[g], key)
			state.Entries[(g+1)%exec.NumKeyGroups] = map[string][]byte{key: good}
		}},
		{"garbage", func() { state.Damage([]byte("\xff\xff\xff")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := maps.Clone(state.Entries)
			old[g] = maps.Clone(state.Entries[g])
			defer func() { state.Entries = old }()
			tc.edit()
			r, _ := New(cfg)
			if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			err := r.Restore(ctx, state, exec.KeyGroupsOf(0, 1))
			if !errors.Is(err, errRestore) || !strings.Contains(fmt.Sprint(err), "window aggregate") {
				t.Fatalf("got %v, want an error of the window aggregate's restore", err)
			}
		})
	}
}

// TestDeltaIsBoundedWithoutCheckpoints checks that without snapshots the
// bookkeeping does not grow with the history: rows inserted and retracted
// over and over leave at most an entry per row id and no deletion
// records, and the first snapshot writes exactly the rows held.
func TestDeltaIsBoundedWithoutCheckpoints(t *testing.T) {
	cfg := config(t, "bigint bigint", []int{0}, "1", plan.Frame{Kind: plan.FrameRowsUnbounded}, "count *")
	var steps []exectest.Step
	for k := range 50 {
		steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint bigint\n+I %d 1\n+I %d 2\n+I 1000 %d", k, k+1, k), AnyOut: true},
			exectest.Step{In: fmt.Sprintf("bigint bigint\n-D %d 1\n-D %d 2", k, k+1), AnyOut: true})
	}
	op, _ := New(cfg)
	state := exectest.NewState()
	steps[len(steps)-1].Check = func(t *testing.T) {
		if c := &op.ck; len(c.ids) > len(c.refs) || len(c.delEnds) != 0 {
			t.Fatalf("after 100 chunks: %d ids marked for %d row ids, %d deletions recorded", len(c.ids), len(c.refs), len(c.delEnds))
		}
		state.Snapshot(t, op, 1)
		if state.Puts != 50 || state.Deletes != 0 {
			t.Fatalf("first snapshot: %d puts, %d deletes; want the 50 rows held", state.Puts, state.Deletes)
		}
	}
	(&exectest.Runner{Op: op, Env: exec.NewTestEnv(exectest.Alloc(t)), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, steps)
}

// restoring is an Agg that restores from a state as it opens, as the
// runtime restores an operator after Open and before any input.
type restoring struct {
	*Agg
	state *exectest.State
}

func (r *restoring) Open(ctx context.Context, env *exec.Env) error {
	if err := r.Agg.Open(ctx, env); err != nil {
		return err
	}
	return r.Agg.Restore(ctx, r.state, env.KeyGroups)
}
