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
