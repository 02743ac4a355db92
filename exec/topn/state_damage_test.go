package topn

import (
	"fmt"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

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
			op := newOp()
			state := exectest.NewState()
			(&exectest.Runner{Op: op, Env: exec.NewTestEnv(exectest.Alloc(t)), Out: newCollector(t)}).Run(t, []exectest.Step{{
				In: "bigint varchar double\n+I 1 a 1.5\n+I 2 b 2.5\n+I 3 c 3.5", AnyOut: true,
				Check: func(t *testing.T) { state.Snapshot(t, op.(*Operator), 1) },
			}})
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
			exectest.CheckDamaged(t, exectest.Damaged{New: newOp, State: state, Damages: damages, Wrap: errRestore})
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
