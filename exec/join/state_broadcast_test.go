package join

import (
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestWindowedBroadcastJoinRestore snapshots windowed broadcast joins
// (inner and left, the kinds a broadcast serves) at a random step, when
// the instances' watermarks differ — each follows the left rows forwarded
// to it — restores them at the same parallelism, and checks that the
// output after every later step is the uninterrupted run's. The instance
// ahead frees right rows the one behind still matches: a checkpoint that
// kept one replica for all, as a broadcast table's, would lose them.
func TestWindowedBroadcastJoinRestore(t *testing.T) {
	ts := []types.T{types.BigIntT, types.TimestampT(3)}
	tsRef := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
	plus := func(d int64) plan.Expr {
		return &plan.Binary{Op: plan.OpAdd, L: tsRef(3), R: &plan.Const{Val: types.IntDatum(d), Typ: types.IntervalT}, Typ: types.TimestampT(3)}
	}
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			lo, hi := int64(-4), int64(0)
			cfg := Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
				Residual: &plan.And{Args: []plan.Expr{
					&plan.Binary{Op: plan.OpGe, L: tsRef(1), R: plus(lo), Typ: types.BoolT},
					&plan.Binary{Op: plan.OpLe, L: tsRef(1), R: plus(hi), Typ: types.BoolT},
				}}, Names: []string{"lk", "lt", "rk", "rt"}, Windowed: true, LeftTime: 1, RightTime: 1, Lo: lo, Hi: hi,
				Broadcast: true}
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, 17))
				for _, p := range []int{2, 3} {
					steps := broadcastWindowSteps(rng, p)
					for _, cut := range []int{10 + rng.IntN(20), 30 + rng.IntN(len(steps)-40)} {
						second := interruptedRun{cfg: cfg, opts: exectest.CollectorOptions{Format: exectest.Millis}, steps: steps,
							cut: cut, from: p, to: p, every: 11, resent: resentInstanceWatermarks}.check(t)
						if n := second.held(); n != 0 {
							t.Fatalf("%d rows held after the last watermark", n)
						}
					}
				}
			}
			// The layout is the instance's own: another parallelism is
			// refused, not restored wrong.
			alloc := exectest.Alloc(t)
			out := exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})
			c := newCluster(t, cfg, 2, alloc, out)
			for i, s := range broadcastWindowSteps(rand.New(rand.NewPCG(1, 1)), 2)[:20] {
				var err error
				if s.wms != nil {
					err = c.watermarks(s.wms)
				} else {
					err = c.send(s.in, s.rows, s.ops)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
			}
			st := exectest.NewState()
			c.snapshot(st, 1)
			if err := newCluster(t, cfg, 3, alloc, out).restore(st); err == nil {
				t.Fatal("a restore at parallelism 3 of a windowed broadcast join's snapshot at 2 succeeded")
			}
		})
	}
}

// broadcastWindowSteps returns a run of a windowed join at parallelism p
// whose instance k reads its left rows lag(k) = 6k behind the first (a
// forward from source splits that read at different speeds): left rows
// forwarded to one instance, and right rows (to all), a few keys wide near
// a clock, minus the lag for the left ones; every few steps a watermark per
// instance, each lagging as its left rows do, the right side's (the
// slowest's) with them; then the final watermark.
func broadcastWindowSteps(rng *rand.Rand, p int) []step {
	var steps []step
	now := int64(100)
	for i := range 90 {
		s := step{in: rng.IntN(2)}
		lag := int64(0)
		if s.in == 0 {
			s.to = 1 + rng.IntN(p)
			lag = int64(6 * (s.to - 1))
		}
		for k := 1 + rng.IntN(3); k > 0; k-- {
			key := types.IntDatum(int64(rng.IntN(3)))
			s.rows = append(s.rows, []types.Datum{key, types.IntDatum(now - lag + int64(rng.IntN(4)))})
		}
		steps = append(steps, s)
		now++
		if i%5 == 4 {
			wms := make([]int64, p)
			for k := range wms {
				wms[k] = now - 2 - int64(6*k)
			}
			steps = append(steps, step{wms: wms})
		}
	}
	last := make([]int64, p)
	for k := range last {
		last[k] = exec.MaxWatermark
	}
	return append(steps, step{wms: last})
}

// resentInstanceWatermarks is resentWatermarks for watermarks of each
// instance: the restarted sources send each instance its last one again.
func resentInstanceWatermarks(before []step) []step {
	for i := len(before) - 1; i >= 0; i-- {
		if before[i].wms != nil {
			return []step{{wms: before[i].wms}}
		}
	}
	return nil
}
