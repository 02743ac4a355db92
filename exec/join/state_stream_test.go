package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestLookupJoinRestore snapshots lookup joins, hash-partitioned or with
// the table broadcast, while stream rows wait for the table to catch up
// and later, restores them at parallelism 1 to 3, and checks that the
// integrated output continues the run: the held stream rows are looked up
// once the table catches up, and stream rows join the restored table.
func TestLookupJoinRestore(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		for _, broadcast := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/broadcast=%v", kind, broadcast), func(t *testing.T) {
				cfg := stateConfig(kind, false, false)
				cfg.Lookup, cfg.Broadcast = true, broadcast
				for seed := range uint64(4) {
					rng := rand.New(rand.NewPCG(seed, 3))
					// Table rows, then the table catches up, among stream rows.
					var steps []step
					for _, s := range changelogSteps(rng, 50) {
						if s.in == 0 {
							s.ops = nil // a lookup's stream rows only insert here
						}
						steps = append(steps, s)
					}
					at := 5 + rng.IntN(20)
					steps = slices.Insert(steps, at, step{ctl: &exec.Control{Kind: exec.CaughtUp, Input: 1}})
					for _, p := range []int{1, 2, 3} {
						cut := 1 + rng.IntN(len(steps)-2)
						lookupRestoreRun(t, cfg, steps, cut, 1+rng.IntN(3), p)
					}
				}
			})
		}
	}
}

// lookupRestoreRun runs steps uninterrupted and, with a snapshot after cut
// restored at parallelism to, interrupted, and checks that the two runs'
// integrated outputs are the same after every step (a lookup join's
// output depends on the table when a stream row arrives, so a brute force
// of the inputs' final state is no oracle).
func lookupRestoreRun(t *testing.T, cfg Config, steps []step, cut, from, to int) {
	t.Helper()
	alloc := exectest.Alloc(t)
	run := func(c *cluster, s step) {
		t.Helper()
		var err error
		if s.ctl != nil {
			err = c.control(*s.ctl)
		} else {
			err = c.send(s.in, s.rows, s.ops)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	refOut := exectest.NewCollector(t, exectest.CollectorOptions{})
	ref := newCluster(t, cfg, from, alloc, refOut)
	var want []string
	for _, s := range steps {
		run(ref, s)
		want = append(want, strings.Join(refOut.Rows(), "\n"))
	}
	out := exectest.NewCollector(t, exectest.CollectorOptions{})
	first := newCluster(t, cfg, from, alloc, out)
	st := exectest.NewState()
	for i, s := range steps[:cut] {
		run(first, s)
		if i%4 == 3 {
			first.snapshot(st, uint64(i))
		}
	}
	first.snapshot(st, uint64(cut))
	second := newCluster(t, cfg, to, alloc, out)
	if err := second.restore(st); err != nil {
		t.Fatalf("restore at %d of a snapshot at %d after step %d: %v", to, from, cut, err)
	}
	for _, s := range steps[:cut] {
		if s.ctl != nil {
			// The table had caught up: the restarted table source
			// catches up again at once, having nothing new.
			run(second, s)
		}
	}
	for i, s := range steps[cut:] {
		run(second, s)
		if got := strings.Join(out.Rows(), "\n"); got != want[cut+i] {
			t.Fatalf("step %d, restored at %d from %d after step %d: integrated output\n%s\nuninterrupted\n%s", cut+i, to, from, cut, got, want[cut+i])
		}
	}
}

// TestWindowedJoinRestore snapshots interval joins of every kind at a
// random step, between watermarks, restores them at parallelism 1 to 3,
// sends the restored instances the last watermark again (restarted sources
// do), and checks that their output after every later step is the
// uninterrupted run's: the same rows are matched, freed and padded at the
// same watermarks.
func TestWindowedJoinRestore(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			ts := []types.T{types.BigIntT, types.TimestampT(3)}
			tsRef := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
			plus := func(d int64) plan.Expr {
				return &plan.Binary{Op: plan.OpAdd, L: tsRef(3), R: &plan.Const{Val: types.IntDatum(d), Typ: types.IntervalT}, Typ: types.TimestampT(3)}
			}
			lo, hi := int64(-3), int64(2)
			cfg := Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
				Residual: &plan.And{Args: []plan.Expr{
					&plan.Binary{Op: plan.OpGe, L: tsRef(1), R: plus(lo), Typ: types.BoolT},
					&plan.Binary{Op: plan.OpLe, L: tsRef(1), R: plus(hi), Typ: types.BoolT},
				}}, Names: []string{"lk", "lt", "rk", "rt"}, Windowed: true, LeftTime: 1, RightTime: 1, Lo: lo, Hi: hi}
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, 13))
				var steps []step
				now := int64(100)
				for i := range 120 {
					s := step{in: rng.IntN(2)}
					for k := 1 + rng.IntN(3); k > 0; k-- {
						key := types.IntDatum(int64(rng.IntN(4)))
						if rng.IntN(10) == 0 {
							key = types.NullDatum
						}
						// Now and then a late row, behind the watermark.
						at := now + int64(rng.IntN(5))
						if rng.IntN(15) == 0 {
							at = now - 6
						}
						s.rows = append(s.rows, []types.Datum{key, types.IntDatum(at)})
					}
					steps = append(steps, s)
					now++
					if i%7 == 6 {
						steps = append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: now - 2}})
					}
				}
				steps = append(steps, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}})
				for _, p := range []int{1, 2, 3} {
					cut := 5 + rng.IntN(len(steps)-10)
					windowedRestoreRun(t, cfg, steps, cut, p)
				}
			}
		})
	}
}

// windowedRestoreRun runs steps uninterrupted at parallelism 1 and, with
// a snapshot after cut restored at parallelism to, interrupted, and
// compares the two runs' integrated output after every step.
func windowedRestoreRun(t *testing.T, cfg Config, steps []step, cut, to int) {
	t.Helper()
	alloc := exectest.Alloc(t)
	opts := exectest.CollectorOptions{Format: exectest.Millis}
	run := func(c *cluster, s step) {
		t.Helper()
		var err error
		if s.ctl != nil {
			err = c.control(*s.ctl)
		} else {
			err = c.send(s.in, s.rows, s.ops)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	refOut := exectest.NewCollector(t, opts)
	ref := newCluster(t, cfg, 1, alloc, refOut)
	var want []string
	for _, s := range steps {
		run(ref, s)
		want = append(want, strings.Join(refOut.Rows(), "\n"))
	}
	out := exectest.NewCollector(t, opts)
	first := newCluster(t, cfg, 1, alloc, out)
	st := exectest.NewState()
	var lastWM *exec.Control
	for i, s := range steps[:cut] {
		run(first, s)
		if s.ctl != nil {
			lastWM = s.ctl
		}
		if i%9 == 8 {
			first.snapshot(st, uint64(i))
		}
	}
	first.snapshot(st, uint64(cut))
	second := newCluster(t, cfg, to, alloc, out)
	if err := second.restore(st); err != nil {
		t.Fatalf("restore at %d after step %d: %v", to, cut, err)
	}
	if lastWM != nil {
		// The restarted sources send the watermarks up to the last again.
		run(second, step{ctl: &exec.Control{Kind: exec.Watermark, Watermark: lastWM.Watermark - 1}})
		run(second, step{ctl: lastWM})
	}
	for i, s := range steps[cut:] {
		run(second, s)
		if got := strings.Join(out.Rows(), "\n"); got != want[cut+i] {
			t.Fatalf("step %d, restored at %d after step %d: integrated output\n%s\nuninterrupted\n%s", cut+i, to, cut, got, want[cut+i])
		}
	}
	if n := second.held(); n != 0 {
		t.Fatalf("%d rows held after the last watermark", n)
	}
}
