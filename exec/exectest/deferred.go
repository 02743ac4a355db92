package exectest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec"
)

// Snapshots written in steps (exec.DeferredSnapshotter).

// deferredStepBudget is the budget of each step checkDeferred takes
// between two steps of the input: a step writes one entry, so that a
// snapshot stays pending over many chunks and most of its entries are
// changed, freed or taken by new groups before they are written.
const deferredStepBudget = 1

// checkDeferred runs r.Steps through a new instance of an operator that
// is an exec.DeferredSnapshotter, beginning a snapshot after each step of
// r.Snapshots and writing it a step of one entry after each of the
// following steps of the input (finishing it before the next snapshot
// begins, and at the end), as the runtime interleaves them; the entries
// written must be want's, those of snapshots taken at once at the same
// points.
func checkDeferred(t *testing.T, r Restore, want *State) {
	t.Helper()
	op := r.New()
	d, ok := op.(exec.DeferredSnapshotter)
	if !ok {
		return
	}
	ctx := context.Background()
	state := NewState()
	snaps := r.Snapshots
	pending := false
	step := func(budget int) {
		t.Helper()
		done, err := d.SnapshotStep(ctx, budget)
		if err != nil {
			t.Fatalf("snapshot step: %v", err)
		}
		pending = !done
	}
	finish := func() {
		t.Helper()
		for pending {
			step(deferredStepBudget)
		}
	}
	env := exec.NewTestEnv(Alloc(t))
	runSteps(t, op, env, r.Steps, NewCollector(t, r.Options), func(k int, _ []string) {
		if len(snaps) > 0 && k == snaps[0] {
			finish()
			var err error
			if pending, err = d.BeginSnapshot(ctx, uint64(k), state); err != nil {
				t.Fatalf("begin snapshot %d: %v", k, err)
			}
			snaps = snaps[1:]
			return
		}
		if pending {
			step(deferredStepBudget)
		}
		if k == len(r.Steps)-1 {
			finish()
		}
	})
	if diff := state.Diff(want); diff != "" {
		t.Fatalf("snapshots written in steps between the later input differ from snapshots written at once (-steps +at once):\n%s", diff)
	}
}

// Diff lists the entries a and b hold differently, "" if none: "- " an
// entry as a holds it, "+ " as b does, by group and key.
func (a *State) Diff(b *State) string {
	var out strings.Builder
	groups := slices.Sorted(maps.Keys(a.Entries))
	groups = slices.Compact(slices.Sorted(slices.Values(append(groups, slices.Collect(maps.Keys(b.Entries))...))))
	for _, g := range groups {
		keys := slices.Collect(maps.Keys(a.Entries[g]))
		keys = slices.Compact(slices.Sorted(slices.Values(append(keys, slices.Collect(maps.Keys(b.Entries[g]))...))))
		for _, k := range keys {
			va, ina := a.Entries[g][k]
			vb, inb := b.Entries[g][k]
			if ina == inb && slices.Equal(va, vb) {
				continue
			}
			if ina {
				fmt.Fprintf(&out, "- group %d %q = %q\n", g, k, va)
			}
			if inb {
				fmt.Fprintf(&out, "+ group %d %q = %q\n", g, k, vb)
			}
		}
	}
	return out.String()
}
