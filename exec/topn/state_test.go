package topn

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// TestRestoreContinuesTheRun checks, for every configuration of the
// randomized test, that a Top-N restored from incremental snapshots
// continues the uninterrupted run (checkRestore).
func TestRestoreContinuesTheRun(t *testing.T) {
	for _, tc := range randomCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.input, tc.part, tc.order, tc.limit, tc.rowNumber, tc.appendOnly)
			for seed := range uint64(4) {
				checkRestore(t, cfg, checkpointSteps(tc, rand.New(rand.NewPCG(seed, 13))))
			}
		})
	}
}

// checkpointSteps returns 30 steps of random changes of tc's input.
func checkpointSteps(tc randomCase, r *rand.Rand) []exectest.Step {
	changes := randomChanges(tc, r)
	maxRows := 12
	if tc.wide > 0 {
		maxRows = 60
	}
	var steps []exectest.Step
	for range 30 {
		steps = append(steps, exectest.Step{In: tc.input + "\n" + strings.Join(changes.Next(maxRows), "\n")})
	}
	return steps
}

// checkRestore runs steps through a Top-N of cfg, snapshotting it after
// three of the first two thirds (so that the state holds the sum of
// incremental snapshots), and checks with exectest.CheckRestore that
// instances restored from the last snapshot at parallelism 1, 2 and 3 (a
// global Top-N's at 1) continue the uninterrupted run, whose integral is
// the brute-force Top-N of the input after every step.
func checkRestore(t *testing.T, cfg Config, steps []exectest.Step) {
	t.Helper()
	steps = slices.Clone(steps)
	for k := range steps {
		steps[k].AnyOut = true
	}
	runSteps(t, cfg, steps, nil)
	cut := 2*len(steps)/3 - 1
	exectest.CheckRestore(t, exectest.Restore{
		New:       exectest.Maker(t, func() (*Operator, error) { return New(cfg) }),
		Steps:     steps,
		Keys:      cfg.Partition,
		Snapshots: []int{cut / 3, 2 * cut / 3, cut},
		Options:   exectest.CollectorOptions{Minimal: true},
	})
}

// TestSnapshotIsIncremental checks that a snapshot writes what changed
// since the previous one: after 10,000 partitions of 3 rows, changing the
// rows of 1% of them (some emptied) writes an entry for each row changed
// and nothing else, a few percent of the bytes of the full snapshot; and
// that a Top-N without partitions, holding 10,000 rows, writes the rows
// 1% of changes touched.
func TestSnapshotIsIncremental(t *testing.T) {
	for _, tc := range []struct {
		name       string
		part       []int
		appendOnly bool
		limit      int64
	}{
		{name: "partitioned", part: []int{0}, limit: 2},
		{name: "append-only", part: []int{0}, appendOnly: true, limit: 3},
		{name: "dedup", part: []int{0}, appendOnly: true, limit: 1},
		{name: "global", limit: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "varchar bigint", tc.part, "1 desc", tc.limit, false, tc.appendOnly)
			op, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			alloc, ctx := exectest.Alloc(t), context.Background()
			if err := op.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer op.Close()
			feed := func(lines []string) { exectest.Feed(t, op, alloc, "varchar bigint\n"+strings.Join(lines, "\n")) }
			const parts = 10000
			key := func(p int) string { return fmt.Sprintf("part%05d", p) }
			rows := 3
			if tc.appendOnly {
				rows = int(tc.limit)
			}
			var lines []string
			for p := range parts {
				for r := range rows {
					lines = append(lines, fmt.Sprintf("+I %s %d", key(p), 10*r))
				}
			}
			feed(lines)
			// 1% of the partitions get a better row; with retractions, a
			// fifth of those lose their rows instead.
			state := exectest.CheckIncremental(t, exectest.Incremental{Op: op, Full: -1, Change: func() {
				lines = lines[:0]
				for p := 0; p < parts; p += 100 {
					if p%500 == 0 && !tc.appendOnly {
						for r := range rows {
							lines = append(lines, fmt.Sprintf("-D %s %d", key(p), 10*r))
						}
						continue
					}
					lines = append(lines, fmt.Sprintf("+I %s %d", key(p), 1000+p))
				}
				feed(lines)
			}, Changed: exectest.Counts{Puts: -1, Deletes: -1, Len: -1}, Percent: 5})
			if state.Puts+state.Deletes == 0 || state.Puts+state.Deletes > 3*parts/100*rows {
				t.Fatalf("snapshot of 1%%: %d puts, %d deletes", state.Puts, state.Deletes)
			}
			// The state holds what an operator restored from it needs:
			// another snapshot of a restored copy writes the same entries.
			r, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if err := r.Restore(ctx, state, exec.KeyGroupsOf(0, 1)); err != nil {
				t.Fatal(err)
			}
			again := exectest.NewState()
			forgetSnapshots(r) // as never snapshotted: write everything
			again.Snapshot(t, r, 1)
			if !maps.Equal(flatten(again), flatten(state)) {
				t.Fatalf("a restored Top-N snapshots %d entries, the state holds %d", again.Len(), state.Len())
			}
		})
	}
}

// forgetSnapshots makes op's next snapshot write every row it holds, as
// if it had never been snapshotted nor restored.
func forgetSnapshots(op *Operator) {
	op.changes = ordtree.Changes{}
	op.dedup.written = false
	if op.slots != nil {
		eachSlot(op, func(_ int32, s *slot) { op.slots.setSaved(s, 0, 0) })
	}
}

// flatten returns the entries of a state as "group key" → value.
func flatten(s *exectest.State) map[string]string {
	m := map[string]string{}
	for g, es := range s.Entries {
		for k, v := range es {
			m[fmt.Sprintf("%d %q", g, k)] = string(v)
		}
	}
	return m
}

// TestRestoreRefusesDamagedState checks that a damaged entry (a bad entry
// key, a sort key that is not a row of the layout, a bad count, trailing
// bytes, a second row of a de-duplicated partition) makes Restore fail
// with an error of the Top-N wrapping ordtree.ErrDamaged, and that a
// snapshot or a restore before Open fails instead of panicking.
func TestRestoreRefusesDamagedState(t *testing.T) {
	for _, dedup := range []bool{false, true} {
		t.Run(fmt.Sprintf("dedup=%v", dedup), func(t *testing.T) {
			cfg := testConfig(t, "bigint varchar double", []int{0}, "2 desc", 1, false, dedup)
			newOp := exectest.Maker(t, func() (*Operator, error) { return New(cfg) })
			state := exectest.SnapshotAfter(t, newOp(), exectest.CollectorOptions{Minimal: true}, "bigint varchar double\n+I 1 a 1.5\n+I 2 b 2.5\n+I 3 c 3.5")
			g, key, good := state.Any()
			part, sort, err := ordtree.SplitEntryKey([]byte(key))
			if err != nil {
				t.Fatal(err)
			}
			rekey := func(s *exectest.State, k []byte) { s.Entries[g][string(k)] = good; delete(s.Entries[g], key) }
			damages := []exectest.Damage{
				{Name: "truncated key", Edit: func(s *exectest.State) { rekey(s, []byte(key[:len(key)-1])) }},
				{Name: "bad partition length", Edit: func(s *exectest.State) { rekey(s, []byte("\x7f"+key[1:])) }},
				{Name: "sort key of another type", Edit: func(s *exectest.State) {
					rekey(s, ordtree.AppendEntryKey(nil, string(part), string(part)+string(sort[len(sort)-9:])))
				}},
				{Name: "zero copies", Edit: func(s *exectest.State) { s.Entries[g][key] = []byte{0} }},
				{Name: "no count", Edit: func(s *exectest.State) { s.Entries[g][key] = nil }},
				{Name: "trailing", Edit: func(s *exectest.State) { s.Entries[g][key] = append(slices.Clone(good), 7) }},
				// Two copies of a row are no damage but in a de-duplicated
				// partition.
				{Name: "two copies", Edit: func(s *exectest.State) { s.Entries[g][key] = []byte{2} }, OK: !dedup},
				{Name: "a second row", Edit: func(s *exectest.State) {
					k := ordtree.AppendEntryKey(nil, string(part), string(sort[:len(sort)-1])+"\x00")
					s.Entries[g][string(k)] = good
				}},
			}
			for i := range damages {
				damages[i].Want = ordtree.ErrDamaged
			}
			exectest.CheckDamaged(t, exectest.Damaged{OpenFirst: true, New: newOp, State: state, Damages: damages, Wrap: errRestore})
		})
	}
}

// TestNoChangesRecordedWithoutCheckpoints checks that an operator never
// snapshotted records no changes, and that once snapshotted a row changed
// over and over is listed at most twice however often it changes.
func TestNoChangesRecordedWithoutCheckpoints(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "1", 2, true, false)
	op, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var steps []exectest.Step
	for k := range 600 {
		steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint bigint\n+I %d 1\n+I 7 %d", k%3, k%5), AnyOut: true},
			exectest.Step{In: fmt.Sprintf("bigint bigint\n-D %d 1", k%3), AnyOut: true})
	}
	state := exectest.NewState()
	steps[299].Check = func(t *testing.T) {
		if op.changes.Tracking() || op.changes.Len() != 0 {
			t.Fatalf("before any snapshot: tracking %v, %d bytes of changes", op.changes.Tracking(), op.changes.Bytes())
		}
		state.Snapshot(t, op, 1)
	}
	steps[len(steps)-1].Check = func(t *testing.T) {
		// 3 rows of partitions 0-2 and 5 of partition 7 changed.
		if n := op.changes.Len(); n > 2*8+256+1 {
			t.Fatalf("after 900 chunks, %d changes listed", n)
		}
		state.Snapshot(t, op, 2)
		if state.Puts+state.Deletes > 8 {
			t.Fatalf("second snapshot: %d puts, %d deletes; want at most one per row changed", state.Puts, state.Deletes)
		}
	}
	(&exectest.Runner{Op: op, Env: exec.NewTestEnv(exectest.Alloc(t)), Out: newCollector(t)}).Run(t, steps)
}

// TestChangesTrackedFromOpenWhenCheckpointing runs the same chunks
// through a Top-N in a job that checkpoints, which notes its changes from
// Open so that its first snapshot begins from the list like the others,
// and through one in a job that does not, whose first snapshot writes
// every row held: both write the same entries, at the first snapshot and
// at the next.
func TestChangesTrackedFromOpenWhenCheckpointing(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "1", 2, true, false)
	var steps []exectest.Step
	for k := range 200 {
		steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint bigint\n+I %d %d\n+I %d 1", k%7, k%5, k%3), AnyOut: true})
		if k%4 == 3 {
			steps = append(steps, exectest.Step{In: fmt.Sprintf("bigint bigint\n-D %d 1", k%3), AnyOut: true})
		}
	}
	states := map[bool]*exectest.State{}
	for _, checkpointing := range []bool{false, true} {
		op, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		env := exec.NewTestEnv(exectest.Alloc(t))
		env.Checkpointing = checkpointing
		st := exectest.NewState()
		states[checkpointing] = st
		steps[100].Check = func(t *testing.T) {
			if op.changes.Tracking() != checkpointing {
				t.Fatalf("checkpointing %v: tracking %v before the first snapshot", checkpointing, op.changes.Tracking())
			}
			st.Snapshot(t, op, 1)
		}
		steps[len(steps)-1].Check = func(t *testing.T) { st.Snapshot(t, op, 2) }
		(&exectest.Runner{Op: op, Env: env, Out: newCollector(t)}).Run(t, steps)
	}
	if diff := states[true].Diff(states[false]); diff != "" {
		t.Fatalf("tracked from Open (-) and not (+):\n%s", diff)
	}
}
