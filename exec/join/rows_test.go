package join

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestHashJoinRowIndex retracts rows from large buckets (two keys, many
// rows each, with duplicates, which get a row index) and from a small one
// (a rare third key, scanned) on both sides of an inner join, over columns
// of several types: strings, NULLs, and doubles where -0 retracts +0 and
// NaN retracts NaN, which the row index does not hash. The first batches
// only insert, so the index is built from rows already held. After every
// batch the integrated output must equal the join of what both sides hold,
// and the join must hold exactly the live rows.
func TestHashJoinRowIndex(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		for _, sweep := range []int{0, 1} {
			t.Run(fmt.Sprintf("seed=%d/sweep=%d", seed, sweep), func(t *testing.T) { runRowIndex(t, seed, sweep) })
		}
	}
}

// runRowIndex runs one case; a sweep gap other than 0 makes the sides drop
// their row indexes that often (in lookups), so that they are rebuilt.
func runRowIndex(t *testing.T, seed uint64, sweepGap int) {
	ts := []types.T{types.BigIntT, types.VarcharT, types.DoubleT, types.BigIntT}
	rig := newRig(t, Config{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "ls", "lf", "lv", "rk", "rs", "rf", "rv"}}, []string{"k", "s", "f", "v"}, exectest.Text, false)
	j := rig.j
	for _, s := range j.sides {
		s.idx.minGap = sweepGap
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	keys := 2
	if sweepGap > 0 {
		keys = 4 // more buckets, each retracted from less often: indexes are dropped
	}
	value := func() []types.Datum {
		k := int64(rng.IntN(keys))
		if rng.IntN(20) == 0 {
			k = 100 // a small bucket
		}
		r := []types.Datum{types.IntDatum(k), types.StringDatum([]string{"", "a", "bb", "é"}[rng.IntN(4)]),
			types.FloatDatum([]float64{0, 1.5, math.NaN()}[rng.IntN(3)]), types.IntDatum(int64(rng.IntN(6)))}
		if rng.IntN(6) == 0 {
			r[1+rng.IntN(3)] = types.NullDatum
		}
		return r
	}
	held := [2][][]types.Datum{}
	indexed := false
	for step := 0; step < 300; step++ {
		side := rng.IntN(2)
		var rows [][]types.Datum
		var ops []exec.Op
		for k := 1 + rng.IntN(8); k > 0; k-- {
			if step >= 20 && len(held[side]) > 30*keys && rng.IntN(2) == 0 {
				i := rng.IntN(len(held[side]))
				r := append([]types.Datum(nil), held[side][i]...)
				held[side] = append(held[side][:i], held[side][i+1:]...)
				if !r[2].Null && r[2].F == 0 && rng.IntN(2) == 0 {
					r[2] = types.FloatDatum(math.Copysign(0, -1))
				}
				rows, ops = append(rows, r), append(ops, exec.Delete)
				continue
			}
			r := value()
			held[side] = append(held[side], r)
			rows, ops = append(rows, r), append(ops, exec.Insert)
		}
		if err := rig.send(side, rows, ops); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		rig.check(fmt.Sprintf("step %d (side %d)", step, side), keysMatch)
		if n := rig.held(); n != int64(len(held[0])+len(held[1])) {
			t.Fatalf("step %d: the join holds %d rows for %d live input rows", step, n, len(held[0])+len(held[1]))
		}
		indexed = indexed || j.sides[0].idx.live > 0 || j.sides[1].idx.live > 0
	}
	if !indexed {
		t.Errorf("no bucket built a row index: the test no longer exercises it")
	}
	if sweeps := j.sides[0].idx.epoch + j.sides[1].idx.epoch; sweepGap > 0 && sweeps < 10 {
		t.Errorf("only %d sweeps: the test no longer drops row indexes", sweeps)
	}
}
