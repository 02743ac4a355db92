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
						interruptedRun{cfg: cfg, steps: steps, cut: cut, from: 1 + rng.IntN(3), to: p, every: 4,
							// The table had caught up: the restarted table source
							// catches up again at once, having nothing new.
							resent: func(before []step) []step {
								return slices.DeleteFunc(slices.Clone(before), func(s step) bool { return s.ctl == nil })
							},
						}.check(t)
					}
				}
			})
		}
	}
}

// TestLookupJoinSwitch switches lookup joins between the table broadcast
// and hash partitioning, at parallelism 1 to 3, while stream rows wait for
// the table to catch up and later: each instance takes the waiting stream
// rows of its key groups and the table rows it holds in the other layout,
// and the run goes on as an uninterrupted one.
func TestLookupJoinSwitch(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		for _, broadcast := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/from-broadcast=%v", kind, broadcast), func(t *testing.T) {
				cfg := stateConfig(kind, false, false)
				cfg.Lookup, cfg.Broadcast = true, broadcast
				to := cfg
				to.Broadcast = !broadcast
				for seed := range uint64(4) {
					rng := rand.New(rand.NewPCG(seed, 7))
					var steps []step
					for _, s := range changelogSteps(rng, 50) {
						if s.in == 0 {
							s.ops = nil
						}
						steps = append(steps, s)
					}
					at := 5 + rng.IntN(20)
					steps = slices.Insert(steps, at, step{ctl: &exec.Control{Kind: exec.CaughtUp, Input: 1}})
					for _, p := range []int{1, 2, 3} {
						cut := 1 + rng.IntN(len(steps)-2)
						interruptedRun{cfg: cfg, steps: steps, cut: cut, from: 1 + rng.IntN(3), to: p, every: 4, switched: &to,
							resent: func(before []step) []step {
								return slices.DeleteFunc(slices.Clone(before), func(s step) bool { return s.ctl == nil })
							},
						}.check(t)
					}
				}
			})
		}
	}
}

// interruptedRun is a run of steps through a join of cfg at parallelism
// from, interrupted after step cut: snapshotted every few steps before it
// and after it, and restored at parallelism to, whose instances are sent
// what the restarted sources send again (resent of the steps before the
// cut) and the rest of the steps.
type interruptedRun struct {
	cfg           Config
	opts          exectest.CollectorOptions
	steps         []step
	cut, from, to int
	every         int // snapshot after each every-th step before the cut
	resent        func(before []step) []step
	// switched, when set, is the configuration restored into (a switch
	// of distribution, Relayout set): after the run, its snapshot must
	// restore without Relayout.
	switched *Config
}

// check runs r uninterrupted and interrupted, and checks that the two
// runs' integrated outputs are the same after every step (a lookup or an
// interval join's output depends on when rows arrive, so a brute force of
// the inputs' final state is no oracle). It returns the restored
// instances.
func (r interruptedRun) check(t *testing.T) *cluster {
	t.Helper()
	alloc := exectest.Alloc(t)
	run := func(c *cluster, s step) {
		t.Helper()
		if err := c.apply(s); err != nil {
			t.Fatal(err)
		}
	}
	refOut := exectest.NewCollector(t, r.opts)
	ref := newCluster(t, r.cfg, r.from, alloc, refOut)
	var want []string
	for _, s := range r.steps {
		run(ref, s)
		want = append(want, strings.Join(refOut.Rows(), "\n"))
	}
	out := exectest.NewCollector(t, r.opts)
	first := newCluster(t, r.cfg, r.from, alloc, out)
	st := exectest.NewState()
	var snaps []int
	for i, s := range r.steps[:r.cut] {
		run(first, s)
		if i%r.every == r.every-1 {
			first.snapshot(st, uint64(i))
			snaps = append(snaps, i)
		}
	}
	first.snapshot(st, uint64(r.cut))
	steppedRun(t, r.cfg, r.from, r.steps[:r.cut], append(snaps, r.cut-1), r.opts)
	toCfg := r.cfg
	if r.switched != nil {
		toCfg = *r.switched
		toCfg.Relayout = true
	}
	second := newCluster(t, toCfg, r.to, alloc, out)
	if err := second.restore(st); err != nil {
		t.Fatalf("restore at %d of a snapshot at %d after step %d: %v", r.to, r.from, r.cut, err)
	}
	if got, want := second.held(), first.held(); !r.cfg.Broadcast && !toCfg.Broadcast && got != want {
		t.Fatalf("restored %d rows at %d, the snapshotted instances held %d", got, r.to, want)
	}
	for _, s := range r.resent(r.steps[:r.cut]) {
		run(second, s)
	}
	for i, s := range r.steps[r.cut:] {
		run(second, s)
		if got := strings.Join(out.Rows(), "\n"); got != want[r.cut+i] {
			t.Fatalf("step %d, restored at %d from %d after step %d: integrated output\n%s\nuninterrupted\n%s",
				r.cut+i, r.to, r.from, r.cut, got, want[r.cut+i])
		}
	}
	if r.switched != nil {
		second.snapshot(st, uint64(len(r.steps)+1))
		toCfg.Relayout = false
		third := newCluster(t, toCfg, r.to, alloc, out)
		if err := third.restore(st); err != nil {
			t.Fatalf("a restore without Relayout of the switched join's snapshot: %v", err)
		}
		if got, want := third.held(), second.held(); got != want {
			t.Fatalf("restored %d rows of the switched join's snapshot, it held %d", got, want)
		}
	}
	return second
}

// TestWindowedJoinRestore snapshots interval joins of every kind at a
// random step, between watermarks, restores them at parallelism 1 to 3,
// sends the restored instances the last watermark again (restarted sources
// do), and checks that their output after every later step is the
// uninterrupted run's: the same rows are matched, freed and padded at the
// same watermarks. Every kind runs also with time columns that follow the
// watermark some way behind (LeftLag, RightLag), which keep their rows
// that much longer.
func TestWindowedJoinRestore(t *testing.T) {
	type variant struct {
		kind plan.JoinKind
		lags bool
	}
	var variants []variant
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin} {
		variants = append(variants, variant{kind: kind}, variant{kind: kind, lags: true})
	}
	for _, v := range variants {
		kind := v.kind
		t.Run(fmt.Sprintf("%s/lags=%v", kind, v.lags), func(t *testing.T) {
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
			if v.lags {
				cfg.LeftLag, cfg.RightLag = 4, 2
			}
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
					second := interruptedRun{cfg: cfg, opts: exectest.CollectorOptions{Format: exectest.Millis}, steps: steps,
						cut: 5 + rng.IntN(len(steps)-10), from: 1, to: p, every: 9, resent: resentWatermarks}.check(t)
					if n := second.held(); n != 0 {
						t.Fatalf("%d rows held after the last watermark", n)
					}
				}
			}
		})
	}
}

// resentWatermarks returns what restarted sources send again after a
// restore from a checkpoint taken after steps: the watermarks up to the
// last one.
func resentWatermarks(before []step) []step {
	for i := len(before) - 1; i >= 0; i-- {
		if wm := before[i].ctl; wm != nil {
			return []step{{ctl: &exec.Control{Kind: exec.Watermark, Watermark: wm.Watermark - 1}}, {ctl: wm}}
		}
	}
	return nil
}
