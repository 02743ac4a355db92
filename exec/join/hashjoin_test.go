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

// TestHashJoinMatchesReference applies random inserts and deletes to both
// sides of every kind of join, with and without a residual condition, and
// checks after every batch that the integrated output equals the join of
// what both sides hold.
func TestHashJoinMatchesReference(t *testing.T) {
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	for _, kind := range kinds {
		for _, residual := range []bool{false, true} {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/residual=%v/seed=%d", kind, residual, seed), func(t *testing.T) {
					runJoinReference(t, kind, residual, seed)
				})
			}
		}
	}
}

// runJoinReference runs one case over inputs (k, v) whose key is
// sometimes NULL; the residual condition is l.v < r.v.
func runJoinReference(t *testing.T, kind plan.JoinKind, residual bool, seed uint64) {
	ts := []types.T{types.BigIntT, types.BigIntT}
	cfg := Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "lv", "rk", "rv"}}
	if kind == plan.SemiJoin || kind == plan.AntiJoin {
		cfg.Names = cfg.Names[:2]
	}
	if residual {
		cfg.Residual = &plan.Binary{Op: plan.OpLt, L: &plan.InputRef{Ord: 1, Typ: types.BigIntT},
			R: &plan.InputRef{Ord: 3, Typ: types.BigIntT}, Typ: types.BoolT}
	}
	match := func(l, r []types.Datum) bool { return keysMatch(l, r) && (!residual || l[1].I < r[1].I) }
	rig := newRig(t, cfg, []string{"k", "v"}, exectest.Text, false)
	rng := rand.New(rand.NewPCG(seed, 7))
	sides := [2][][]types.Datum{} // the rows each side holds, to retract from
	for step := 0; step < 150; step++ {
		side := rng.IntN(2)
		var rows [][]types.Datum
		var ops []exec.Op
		for k := 1 + rng.IntN(4); k > 0; k-- {
			if len(sides[side]) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(sides[side]))
				r := sides[side][i]
				sides[side] = append(sides[side][:i], sides[side][i+1:]...)
				rows, ops = append(rows, r), append(ops, exec.Delete)
				continue
			}
			k, v := types.IntDatum(int64(rng.IntN(4))), types.IntDatum(int64(rng.IntN(5)))
			if rng.IntN(8) == 0 {
				k = types.NullDatum
			}
			r := []types.Datum{k, v}
			sides[side] = append(sides[side], r)
			rows, ops = append(rows, r), append(ops, exec.Insert)
		}
		if err := rig.send(side, rows, ops); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		rig.check(fmt.Sprintf("step %d (side %d)", step, side), match)
	}
	if held, live := rig.held(), len(sides[0])+len(sides[1]); held > int64(live) {
		t.Fatalf("the join holds %d rows for %d live input rows", held, live)
	}
}

// TestHashJoinRejectsUnknownRetraction checks that a retraction of a row
// the join never saw is an error, not a silent wrong result.
func TestHashJoinRejectsUnknownRetraction(t *testing.T) {
	ts := []types.T{types.BigIntT, types.BigIntT}
	r := exectest.Runner{Op: NewHashJoin(Config{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"a", "b", "c", "d"}}), Env: exec.NewTestEnv(exectest.Alloc(t)), Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
	r.Run(t, []exectest.Step{{In: "bigint bigint\n-D 1 2", Err: errRetractUnknown}})
}

// TestLookupJoin checks a lookup join's semantics: stream rows join the
// table rows held when they arrive, table changes emit nothing, stream rows
// are not kept, and a LEFT lookup pads a row with no table match once.
func TestLookupJoin(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			ts := []types.T{types.BigIntT, types.BigIntT}
			env := exec.NewTestEnv(exectest.Alloc(t))
			r := exectest.Runner{Op: NewHashJoin(Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
				Names: []string{"k", "v", "tk", "tv"}, Lookup: true}), Env: env, Out: exectest.NewCollector(t, exectest.CollectorOptions{})}
			// Padded rows, which only a LEFT lookup emits.
			pad := func(row string) string {
				if kind == plan.LeftJoin {
					return row
				}
				return ""
			}
			r.Run(t, []exectest.Step{
				// Stream rows before the table caught up are held, not looked up.
				{Input: 0, In: "bigint bigint\n+I 1 7\n+I 3 8"},
				{Input: 1, In: "bigint bigint\n+I 1 100\n+I 2 200"},
				// Now 1 matches, 3 does not.
				{Ctl: &exec.Control{Kind: exec.CaughtUp, Input: 1}, Want: "+I 1 7 1 100\n" + pad("+I 3 8 NULL NULL")},
				{Input: 1, In: "bigint bigint\n-U 1 100\n+U 1 101"}, // a table update: nothing
				{Input: 0, In: "bigint bigint\n+I 1 9", Want: "+I 1 9 1 101"},
				{Input: 1, In: "bigint bigint\n-D 2 200"}, // a table delete: nothing
				{Input: 0, In: "bigint bigint\n+I 2 10", Want: pad("+I 2 10 NULL NULL"), Check: func(t *testing.T) {
					if held := env.Metrics.StateKeys.Load(); held != 1 {
						t.Fatalf("holds %d rows; want the table's 1 (stream rows are not kept)", held)
					}
				}},
			})
		})
	}
}

// TestWindowedJoinMatchesReference runs interval joins of two append-only
// inputs (k, ts) with watermarks, checks that the output only appends and
// that state is freed as the watermark passes, and that after the end of
// input the output is the join of all rows under lo <= l.ts - r.ts <= hi.
func TestWindowedJoinMatchesReference(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin} {
		// The last two bounds are wide enough that an unpadded side's
		// deadlines are rounded up (deadlineGrain: 8 and 16 ms).
		for _, b := range [][2]int64{{-3, 3}, {0, 0}, {-5, -1}, {-512, 0}, {-100, 1000}} {
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
	// The rows of a window of about 10+|lo|+|hi| ms (and a grain), up to
	// three a millisecond, not all 600-odd rows once that is fewer.
	if limit := 150 + 3*(hi-lo+deadlineGrain(hi-lo, false)); maxHeld > limit && limit < 600 {
		t.Fatalf("held up to %d rows: state is not freed as the watermark passes", maxHeld)
	}
	rig.check("after the end of input", func(l, r []types.Datum) bool {
		return keysMatch(l, r) && l[1].I-r[1].I >= lo && l[1].I-r[1].I <= hi
	})
}

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

// TestHashJoinKeyTypes joins on a key of a DOUBLE, a VARCHAR and a DATE,
// with -0 on one side meeting +0 on the other, NaN meeting NaN (keys are
// equal when rowkey encodes them alike), empty strings and NULLs, over
// random inserts and retractions, for every kind.
func TestHashJoinKeyTypes(t *testing.T) {
	ts := []types.T{types.DoubleT, types.VarcharT, types.DateT, types.BigIntT}
	floats := []float64{0, math.Copysign(0, -1), 1.5, math.NaN()}
	strs := []string{"", "a", "é"}
	norm := func(f float64) uint64 {
		if f == 0 {
			f = 0
		}
		return math.Float64bits(f)
	}
	match := func(l, r []types.Datum) bool {
		for k := range 3 {
			if l[k].Null || r[k].Null {
				return false
			}
		}
		return norm(l[0].F) == norm(r[0].F) && l[1].S == r[1].S && l[2].I == r[2].I
	}
	kinds := []plan.JoinKind{plan.InnerJoin, plan.LeftJoin, plan.RightJoin, plan.FullJoin, plan.SemiJoin, plan.AntiJoin}
	for _, kind := range kinds {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", kind, seed), func(t *testing.T) {
				cfg := Config{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0, 1, 2}, RightKeys: []int{0, 1, 2},
					Names: []string{"lf", "ls", "ld", "lv", "rf", "rs", "rd", "rv"}}
				if kind == plan.SemiJoin || kind == plan.AntiJoin {
					cfg.Names = cfg.Names[:4]
				}
				rig := newRig(t, cfg, []string{"f", "s", "d", "v"}, exectest.Text, false)
				rng := rand.New(rand.NewPCG(seed, 11))
				held := [2][][]types.Datum{}
				for step := 0; step < 200; step++ {
					side := rng.IntN(2)
					var rows [][]types.Datum
					var ops []exec.Op
					for k := 1 + rng.IntN(6); k > 0; k-- {
						if h := held[side]; len(h) > 0 && rng.IntN(3) == 0 {
							i := rng.IntN(len(h))
							rows, ops = append(rows, h[i]), append(ops, exec.Delete)
							held[side] = append(h[:i], h[i+1:]...)
							continue
						}
						r := []types.Datum{types.FloatDatum(floats[rng.IntN(len(floats))]),
							types.StringDatum(strs[rng.IntN(len(strs))]), types.IntDatum(int64(rng.IntN(2))),
							types.IntDatum(int64(rng.IntN(100)))}
						if rng.IntN(10) == 0 {
							r[rng.IntN(3)] = types.NullDatum
						}
						held[side] = append(held[side], r)
						rows, ops = append(rows, r), append(ops, exec.Insert)
					}
					if err := rig.send(side, rows, ops); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
					rig.check(fmt.Sprintf("step %d (side %d)", step, side), match)
				}
			})
		}
	}
}
