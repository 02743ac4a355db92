package topn

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	ctx := context.Background()
	for _, dedup := range []bool{false, true} {
		cfg := testConfig(t, "bigint varchar double", []int{0}, "2 desc", 1, false, dedup)
		op, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Snapshot(ctx, 1, exectest.NewState()); err == nil {
			t.Fatal("snapshot before Open succeeded")
		}
		if err := op.Restore(ctx, exectest.NewState(), exec.KeyGroupsOf(0, 1)); err == nil {
			t.Fatal("restore before Open succeeded")
		}
		alloc := exectest.Alloc(t)
		state := exectest.NewState()
		(&exectest.Runner{Op: op, Env: exec.NewTestEnv(alloc), Out: newCollector(t)}).Run(t, []exectest.Step{{
			In: "bigint varchar double\n+I 1 a 1.5\n+I 2 b 2.5\n+I 3 c 3.5", AnyOut: true,
			Check: func(t *testing.T) { state.Snapshot(t, op, 1) },
		}})
		var g int
		var key string
		for g = range state.Entries {
			for key = range state.Entries[g] {
				break
			}
		}
		good := state.Entries[g][key]
		part, sort, err := ordtree.SplitEntryKey([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			edit func()
		}{
			{"truncated key", func() { state.Entries[g][key[:len(key)-1]] = good; delete(state.Entries[g], key) }},
			{"bad partition length", func() { state.Entries[g]["\x7f"+key[1:]] = good; delete(state.Entries[g], key) }},
			{"sort key of another type", func() {
				k := ordtree.AppendEntryKey(nil, string(part), string(part)+string(sort[len(sort)-9:]))
				state.Entries[g][string(k)] = good
				delete(state.Entries[g], key)
			}},
			{"zero copies", func() { state.Entries[g][key] = []byte{0} }},
			{"no count", func() { state.Entries[g][key] = nil }},
			{"trailing", func() { state.Entries[g][key] = append(slices.Clone(good), 7) }},
			{"two copies", func() { state.Entries[g][key] = []byte{2} }},
			{"a second row", func() {
				k := ordtree.AppendEntryKey(nil, string(part), string(sort[:len(sort)-1])+"\x00")
				state.Entries[g][string(k)] = good
			}},
		} {
			t.Run(fmt.Sprintf("dedup=%v/%s", dedup, tc.name), func(t *testing.T) {
				old := maps.Clone(state.Entries[g])
				defer func() { state.Entries[g] = old }()
				tc.edit()
				r, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if err := r.Open(ctx, exec.NewTestEnv(alloc)); err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				err = r.Restore(ctx, state, exec.KeyGroupsOf(0, 1))
				if tc.name == "two copies" && !dedup {
					if err != nil {
						t.Fatalf("two copies of a row: %v", err)
					}
					return
				}
				if !errors.Is(err, ordtree.ErrDamaged) || !errors.Is(err, errRestore) {
					t.Fatalf("got %v, want an error of the Top-N wrapping ordtree.ErrDamaged", err)
				}
			})
		}
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
