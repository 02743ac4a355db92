package join

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// apply sends the cluster one step of a test: a watermark per instance, a
// control message, left rows forwarded to one instance, or rows routed by
// key.
func (c *cluster) apply(s step) error {
	switch {
	case s.wms != nil:
		return c.watermarks(s.wms)
	case s.ctl != nil:
		return c.control(*s.ctl)
	case s.to > 0:
		return c.forward(s.to-1, s.rows)
	}
	return c.send(s.in, s.rows, s.ops)
}

// begin has every instance begin a snapshot into st (after finishing the
// one pending), as the runtime does at a barrier with an
// exec.DeferredSnapshotter.
func (c *cluster) begin(st *exectest.State, epoch uint64) {
	c.t.Helper()
	c.finish()
	c.pending = make([]bool, len(c.js))
	for i, j := range c.js {
		var err error
		if c.pending[i], err = j.BeginSnapshot(context.Background(), epoch, st); err != nil {
			c.t.Fatalf("instance %d: begin snapshot %d: %v", i, epoch, err)
		}
	}
}

// step has every instance with a snapshot pending write one entry of it.
func (c *cluster) step() {
	c.t.Helper()
	for i, j := range c.js {
		if i >= len(c.pending) || !c.pending[i] {
			continue
		}
		done, err := j.SnapshotStep(context.Background(), 1)
		if err != nil {
			c.t.Fatalf("instance %d: snapshot step: %v", i, err)
		}
		c.pending[i] = !done
	}
}

// finish writes what remains of the instances' pending snapshots.
func (c *cluster) finish() {
	c.t.Helper()
	for i := range c.pending {
		for c.pending[i] {
			c.step()
		}
	}
}

// steppedRun runs steps through two clusters of p instances of cfg, one
// that snapshots at once after the steps snaps lists (in order; a step
// may be listed more than once), and one that begins its snapshots there
// and writes them an entry per instance after each later step of its
// input, so that most pending rows are changed, retracted or freed before
// a step writes them; and checks that after each snapshot both hold the
// same entries. envs change the instances' environments, as newCluster's.
func steppedRun(t *testing.T, cfg Config, p int, steps []step, snaps []int, opts exectest.CollectorOptions, envs ...func(*exec.Env)) {
	t.Helper()
	alloc := exectest.Alloc(t)
	atOnce := newCluster(t, cfg, p, alloc, exectest.NewCollector(t, opts), envs...)
	stepped := newCluster(t, cfg, p, alloc, exectest.NewCollector(t, opts), envs...)
	want, got := exectest.NewState(), exectest.NewState()
	compare := func(i int) {
		t.Helper()
		stepped.finish()
		if diff := got.Diff(want); diff != "" {
			t.Fatalf("after step %d, snapshots written in steps differ from snapshots written at once (-steps +at once):\n%s", i, diff)
		}
	}
	epoch := uint64(0)
	for i, s := range steps {
		if err := atOnce.apply(s); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if err := stepped.apply(s); err != nil {
			t.Fatalf("step %d, snapshots in steps: %v", i, err)
		}
		stepped.step()
		for len(snaps) > 0 && snaps[0] == i {
			compare(i)
			epoch++
			atOnce.snapshot(want, epoch)
			stepped.begin(got, epoch)
			snaps = snaps[1:]
		}
	}
	compare(len(steps) - 1)
}

// TestJoinSnapshotInStepsHoldsTheBarrier begins a snapshot of a left join
// whose rows are all pending, then, before any step, changes the match
// count of a pending left row, retracts another, and adds rows; the
// snapshot written in steps afterwards must hold the rows and counts as
// at the barrier, and the next one the changes.
func TestJoinSnapshotInStepsHoldsTheBarrier(t *testing.T) {
	cfg := stateConfig(plan.LeftJoin, false, false)
	row := func(k, v int64, s string) []types.Datum {
		return []types.Datum{types.IntDatum(k), types.IntDatum(v), types.StringDatum(s)}
	}
	steps := []step{
		{in: 0, rows: [][]types.Datum{row(1, 1, "a"), row(2, 2, "b"), row(3, 3, "c")}},
		{in: 1, rows: [][]types.Datum{row(1, 9, "x")}},
		// The barrier; then, before a step writes them:
		{in: 1, rows: [][]types.Datum{row(2, 8, "y")}},                                 // a count changes
		{in: 0, rows: [][]types.Datum{row(3, 3, "c")}, ops: []exec.Op{exec.Delete}},    // a row goes
		{in: 0, rows: [][]types.Datum{row(4, 4, "d")}},                                 // a row comes
		{in: 1, rows: [][]types.Datum{row(1, 9, "x")}, ops: []exec.Op{exec.Delete}},    // a count changes back
		{in: 0, rows: [][]types.Datum{row(1, 1, "a")}, ops: []exec.Op{exec.Delete}},    // a saved row goes
		{in: 0, rows: [][]types.Datum{row(5, 5, "e"), row(6, 6, "f"), row(7, 7, "g")}}, // more
		{in: 1, rows: [][]types.Datum{row(6, 0, "z"), row(7, 0, "z")}},                 // counts of new rows
	}
	steppedRun(t, cfg, 1, steps, []int{1, len(steps) - 1}, exectest.CollectorOptions{})

	// The same run with a snapshot pending over the whole of it, no step
	// taken until the end: every change above is saved, none written from
	// the store.
	alloc := exectest.Alloc(t)
	c := newCluster(t, cfg, 1, alloc, exectest.NewCollector(t, exectest.CollectorOptions{}))
	ref := newCluster(t, cfg, 1, alloc, exectest.NewCollector(t, exectest.CollectorOptions{}))
	got, want := exectest.NewState(), exectest.NewState()
	for i, s := range steps {
		for _, x := range []*cluster{c, ref} {
			if err := x.apply(s); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		if i == 1 {
			c.begin(got, 1)
			ref.snapshot(want, 1)
		}
	}
	if got.Puts != 0 {
		t.Fatalf("%d entries written before any step", got.Puts)
	}
	if saved := c.js[0].snap.saved.Len(); saved != 4 {
		t.Errorf("%d entries saved by copy-on-write, want 4 (left rows 1, 2 and 3, right row 1)", saved)
	}
	c.finish()
	if diff := got.Diff(want); diff != "" {
		t.Fatalf("the snapshot pending over the run (-steps +at once):\n%s", diff)
	}
}

// TestJoinSnapshotInStepsRandom runs random changelogs through every kind
// of join, keyed and cross, at parallelism 1 to 3, beginning snapshots at
// random steps and writing them an entry per step after, against
// snapshots written at once at the same points; in a job that
// checkpoints, whose joins track their changes from the start, and in
// one that does not, whose first snapshot writes every row held.
func TestJoinSnapshotInStepsRandom(t *testing.T) {
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	for _, kind := range kinds {
		for _, variant := range []struct{ cross, checkpointing bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
			cross := variant.cross
			env := func(e *exec.Env) { e.Checkpointing = variant.checkpointing }
			t.Run(fmt.Sprintf("%s/cross=%v/checkpointing=%v", kind, cross, variant.checkpointing), func(t *testing.T) {
				cfg := stateConfig(kind, true, cross)
				for seed := range uint64(4) {
					rng := rand.New(rand.NewPCG(seed, 17))
					steps := changelogSteps(rng, 80)
					var snaps []int
					for i := range steps {
						if rng.IntN(8) == 0 {
							snaps = append(snaps, i)
						}
					}
					p := 1
					if !cross {
						p = 1 + int(seed)%3
					}
					steppedRun(t, cfg, p, steps, snaps, exectest.CollectorOptions{}, env)
				}
			})
		}
	}
}
