package over

import (
	"context"
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
					New:   exectest.Maker(t, func() (*Agg, error) { return New(cfg) }),
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
	(&exectest.Runner{Op: exectest.Restoring(op, state), Env: exec.NewTestEnv(alloc), Out: out}).Run(t, []exectest.Step{{
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
			feed := func(lines []string) { exectest.Feed(t, op, env.Alloc, input+"\n"+strings.Join(lines, "\n")) }
			const rows = 10000
			row := func(r int) string { return fmt.Sprintf("%d %d %d name%05d", r%parts, r, r%13, r) }
			var lines []string
			for r := range rows {
				lines = append(lines, "+I "+row(r))
			}
			for lo := 0; lo < rows; lo += 1000 {
				feed(lines[lo : lo+1000])
			}
			exectest.CheckIncremental(t, exectest.Incremental{Op: op, Full: rows, Change: func() {
				lines = lines[:0]
				for r := 0; r < rows; r += 100 {
					if r%500 == 0 {
						lines = append(lines, "-D "+row(r))
					} else {
						lines = append(lines, "+I "+row(rows+r))
					}
				}
				feed(lines)
			}, Changed: exectest.Counts{Puts: 80, Deletes: 20, Len: rows + 60}, Percent: 2})
		})
	}
}

// TestRestoreRefusesDamagedState checks that a damaged entry (truncated,
// trailing bytes, values that are not its key's, a row in another key
// group, garbage) makes Restore fail with an error of the operator, and
// that a snapshot before Open fails instead of panicking.
func TestRestoreRefusesDamagedState(t *testing.T) {
	cfg := config(t, "bigint bigint varchar", []int{0}, "1", plan.Frame{Kind: plan.FrameRowsUnbounded}, "count *")
	newOp := exectest.Maker(t, func() (*Agg, error) { return New(cfg) })
	state := exectest.SnapshotAfter(t, newOp(), exectest.CollectorOptions{}, "bigint bigint varchar\n+I 1 5 a\n+I 1 5 a\n+I 1 6 b")
	if state.Len() != 2 {
		t.Fatalf("%d entries, want 2", state.Len())
	}
	g, _, _ := state.Any()
	keys := slices.Sorted(maps.Keys(state.Entries[g]))
	key, other := keys[0], keys[1]
	good := state.Entries[g][key]
	exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true,
		New: newOp, State: state, Wrap: errRestore, Says: "window aggregate",
		Damages: []exectest.Damage{
			{Name: "truncated", Edit: func(s *exectest.State) { s.Entries[g][key] = good[:len(good)-1] }},
			{Name: "trailing", Edit: func(s *exectest.State) { s.Entries[g][key] = append(slices.Clone(good), 0) }},
			{Name: "not the key's values", Edit: func(s *exectest.State) { s.Entries[g][key] = s.Entries[g][other] }},
			{Name: "bad key", Edit: func(s *exectest.State) { delete(s.Entries[g], key); s.Entries[g]["\x7f"] = good }},
			{Name: "other key group", Edit: func(s *exectest.State) {
				delete(s.Entries[g], key)
				s.Entries[(g+1)%exec.NumKeyGroups] = map[string][]byte{key: good}
			}},
			{Name: "garbage", Edit: func(s *exectest.State) { s.Damage([]byte("\xff\xff\xff")) }},
		},
	})
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
		if c := &op.ck; len(c.ids) > 64*len(c.inUse) || len(c.delEnds) != 0 {
			t.Fatalf("after 100 chunks: %d ids marked for %d row ids, %d deletions recorded", len(c.ids), 64*len(c.inUse), len(c.delEnds))
		}
		state.Snapshot(t, op, 1)
		if state.Puts != 50 || state.Deletes != 0 {
			t.Fatalf("first snapshot: %d puts, %d deletes; want the 50 rows held", state.Puts, state.Deletes)
		}
	}
	(&exectest.Runner{Op: op, Env: exec.NewTestEnv(exectest.Alloc(t)), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}).Run(t, steps)
}
