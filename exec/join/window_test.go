package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/planner/plan"
)

// TestWindowedJoinMatchesReference runs interval joins of two append-only
// inputs (k, ts) with watermarks, checks that the output only appends and
// that state is freed as the watermark passes, and that after the end of
// input the output is the join of all rows under lo <= l.ts - r.ts <= hi.
func TestWindowedJoinMatchesReference(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin} {
		for _, b := range [][2]int64{{-3, 3}, {0, 0}, {-5, -1}} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/[%d,%d]/seed=%d", kind, b[0], b[1], seed), func(t *testing.T) {
					runWindowedJoin(t, kind, b[0], b[1], seed)
				})
			}
		}
	}
}

// runWindowedJoin runs one case: batches 1 ms apart of rows of three keys
// (a tenth of them NULL) whose times are up to 4 ms after their batch's,
// and a watermark every ten batches.
func runWindowedJoin(t *testing.T, kind plan.JoinKind, lo, hi int64, seed uint64) {
	ts := []types.T{types.BigIntT, types.TimestampT(3)}
	tsRef := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
	plus := func(d int64) plan.Expr {
		return &plan.Binary{Op: plan.OpAdd, L: tsRef(3), R: &plan.Const{Val: types.IntDatum(d), Typ: types.IntervalT}, Typ: types.TimestampT(3)}
	}
	cond := &plan.And{Args: []plan.Expr{ // l.ts BETWEEN r.ts + lo AND r.ts + hi
		&plan.Binary{Op: plan.OpGe, L: tsRef(1), R: plus(lo), Typ: types.BoolT},
		&plan.Binary{Op: plan.OpLe, L: tsRef(1), R: plus(hi), Typ: types.BoolT},
	}}
	rig := newRig(t, Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Residual: cond, Names: []string{"lk", "lt", "rk", "rt"}, Windowed: true, LeftTime: 1, RightTime: 1, Lo: lo, Hi: hi},
		[]string{"k", "ts"}, exectest.Millis, true)
	rng := rand.New(rand.NewPCG(seed, 11))
	now, wm := int64(100), int64(0)
	maxHeld := int64(0)
	for step := 0; step < 300; step++ {
		side := rng.IntN(2)
		var rows [][]types.Datum
		for k := 1 + rng.IntN(3); k > 0; k-- {
			key, at := types.IntDatum(int64(rng.IntN(3))), types.IntDatum(now+int64(rng.IntN(5))) // a timestamp in ms
			if rng.IntN(10) == 0 {
				key = types.NullDatum
			}
			rows = append(rows, []types.Datum{key, at})
		}
		if err := rig.send(side, rows, nil); err != nil {
			t.Fatal(err)
		}
		now++
		if step%10 == 9 {
			wm = now - 2 // every later row has ts >= now > wm
			if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: wm}); err != nil {
				t.Fatal(err)
			}
			maxHeld = max(maxHeld, rig.held())
		}
	}
	if err := rig.control(exec.Control{Kind: exec.Watermark, Watermark: exec.MaxWatermark}); err != nil {
		t.Fatal(err)
	}
	if held := rig.held(); held != 0 {
		t.Fatalf("%d rows held after the watermark passed them all", held)
	}
	// The rows of a window of about 10+|lo|+|hi| ms, not all 600-odd rows.
	if maxHeld > 150 {
		t.Fatalf("held up to %d rows: state is not freed as the watermark passes", maxHeld)
	}
	rig.check("after the end of input", func(l, r []types.Datum) bool {
		return keysMatch(l, r) && l[1].I-r[1].I >= lo && l[1].I-r[1].I <= hi
	})
}
