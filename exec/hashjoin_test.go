package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// joinRow is a row of either side: (k, v) with a nullable key.
type joinRow struct {
	k, v  int64
	kNull bool
}

func (r joinRow) datums() []types.Datum {
	k := types.IntDatum(r.k)
	if r.kNull {
		k = types.NullDatum
	}
	return []types.Datum{k, types.IntDatum(r.v)}
}

// referenceJoin computes the join of the current left and right rows the
// slow way: every pair, the condition, and the kind's padding.
func referenceJoin(kind plan.JoinKind, residual bool, left, right []joinRow) map[string]int {
	match := func(l, r joinRow) bool {
		return !l.kNull && !r.kNull && l.k == r.k && (!residual || l.v < r.v)
	}
	out := map[string]int{}
	rightMatched := make([]bool, len(right))
	for _, l := range left {
		n := 0
		for ri, r := range right {
			if match(l, r) {
				n++
				rightMatched[ri] = true
				if kind != plan.SemiJoin && kind != plan.AntiJoin {
					out[pairText(&l, &r)]++
				}
			}
		}
		switch {
		case kind == plan.SemiJoin && n > 0, kind == plan.AntiJoin && n == 0:
			out[pairText(&l, nil)+"|semi"]++
		case n == 0 && kind.PreservesLeft():
			out[pairText(&l, nil)]++
		}
	}
	if kind.PreservesRight() {
		for ri, r := range right {
			if !rightMatched[ri] {
				out[pairText(nil, &r)]++
			}
		}
	}
	return out
}

func pairText(l, r *joinRow) string {
	side := func(x *joinRow) string {
		switch {
		case x == nil:
			return "NULL,NULL"
		case x.kNull:
			return fmt.Sprintf("NULL,%d", x.v)
		}
		return fmt.Sprintf("%d,%d", x.k, x.v)
	}
	return side(l) + "|" + side(r)
}

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

func runJoinReference(t *testing.T, kind plan.JoinKind, residual bool, seed uint64) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := []types.T{types.BigIntT, types.BigIntT}
	cfg := HashJoinConfig{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"lk", "lv", "rk", "rv"}}
	if kind == plan.SemiJoin || kind == plan.AntiJoin {
		cfg.Names = cfg.Names[:2]
	}
	if residual {
		cfg.Residual = &plan.Binary{Op: plan.OpLt, L: &plan.InputRef{Ord: 1, Typ: types.BigIntT},
			R: &plan.InputRef{Ord: 3, Typ: types.BigIntT}, Typ: types.BoolT}
	}
	j := NewHashJoin(cfg)
	env := NewTestEnv(alloc)
	ctx := context.Background()
	if err := j.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	got := map[string]int{}
	collect := EmitterFunc(func(ctx context.Context, c Chunk) error {
		outTypes := make([]types.T, c.Batch.NumCols())
		for k := range outTypes {
			outTypes[k] = types.BigIntT
		}
		for i, row := range types.Rows(c.Batch, outTypes) {
			var parts []string
			for _, d := range row {
				if d.Null {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, fmt.Sprint(d.I))
				}
			}
			key := strings.Join(parts[:2], ",") + "|"
			if len(parts) == 4 {
				key += strings.Join(parts[2:], ",")
			} else {
				key = strings.Join(parts, ",") + "|NULL,NULL|semi"
			}
			w := 1
			if c.Ops != nil && c.Ops[i].IsRetraction() {
				w = -1
			}
			got[key] += w
			if got[key] == 0 {
				delete(got, key)
			}
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(seed, 7))
	sides := [2][]joinRow{}
	for step := 0; step < 150; step++ {
		side := rng.IntN(2)
		var rows [][]types.Datum
		var ops []Op
		for k := 1 + rng.IntN(4); k > 0; k-- {
			if len(sides[side]) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(sides[side]))
				r := sides[side][i]
				sides[side] = append(sides[side][:i], sides[side][i+1:]...)
				rows, ops = append(rows, r.datums()), append(ops, Delete)
				continue
			}
			r := joinRow{k: int64(rng.IntN(4)), v: int64(rng.IntN(5)), kNull: rng.IntN(8) == 0}
			sides[side] = append(sides[side], r)
			rows, ops = append(rows, r.datums()), append(ops, Insert)
		}
		rec := types.BuildRecord(alloc, []string{"k", "v"}, ts, rows)
		err := j.Process(ctx, side, Chunk{Batch: rec, Ops: ops}, collect)
		rec.Release()
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		want := referenceJoin(kind, residual, sides[0], sides[1])
		if fmt.Sprint(sortedCounts(got)) != fmt.Sprint(sortedCounts(want)) {
			t.Fatalf("step %d (side %d): integrated output\n%v\nwant\n%v", step, side, sortedCounts(got), sortedCounts(want))
		}
	}
	if held := env.Metrics.StateKeys.Load(); held > int64(len(sides[0])+len(sides[1])) {
		t.Fatalf("the join holds %d rows for %d live input rows", held, len(sides[0])+len(sides[1]))
	}
}

func sortedCounts(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s x%d", k, v))
	}
	sort.Strings(out)
	return out
}

// TestHashJoinRejectsUnknownRetraction checks that a retraction of a row
// the join never saw is an error, not a silent wrong result.
func TestHashJoinRejectsUnknownRetraction(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := []types.T{types.BigIntT, types.BigIntT}
	j := NewHashJoin(HashJoinConfig{Kind: plan.InnerJoin, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Names: []string{"a", "b", "c", "d"}})
	if err := j.Open(context.Background(), NewTestEnv(alloc)); err != nil {
		t.Fatal(err)
	}
	rec := types.BuildRecord(alloc, []string{"k", "v"}, ts, [][]types.Datum{{types.IntDatum(1), types.IntDatum(2)}})
	defer rec.Release()
	err := j.Process(context.Background(), 0, Chunk{Batch: rec, Ops: []Op{Delete}}, EmitterFunc(func(context.Context, Chunk) error { return nil }))
	if err == nil || !strings.Contains(err.Error(), "never received") {
		t.Fatalf("got %v", err)
	}
}

// TestLookupJoin checks a lookup join's semantics: stream rows join the
// table rows held when they arrive, table changes emit nothing, stream rows
// are not kept, and a LEFT lookup pads a row with no table match once.
func TestLookupJoin(t *testing.T) {
	for _, kind := range []plan.JoinKind{plan.InnerJoin, plan.LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer alloc.AssertSize(t, 0)
			ts := []types.T{types.BigIntT, types.BigIntT}
			j := NewHashJoin(HashJoinConfig{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
				Names: []string{"k", "v", "tk", "tv"}, Lookup: true})
			env := NewTestEnv(alloc)
			ctx := context.Background()
			if err := j.Open(ctx, env); err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			var got []string
			collect := EmitterFunc(func(ctx context.Context, c Chunk) error {
				for i, row := range types.Rows(c.Batch, []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT}) {
					op := Insert
					if c.Ops != nil {
						op = c.Ops[i]
					}
					var vals []string
					for _, d := range row {
						vals = append(vals, types.Format(d, types.BigIntT))
					}
					got = append(got, fmt.Sprintf("%s (%s)", op, strings.Join(vals, ", ")))
				}
				return nil
			})
			send := func(side int, ops []Op, rows ...[]types.Datum) {
				t.Helper()
				rec := types.BuildRecord(alloc, []string{"k", "v"}, ts, rows)
				defer rec.Release()
				if err := j.Process(ctx, side, Chunk{Batch: rec, Ops: ops}, collect); err != nil {
					t.Fatal(err)
				}
			}
			r := func(k, v int64) []types.Datum { return []types.Datum{types.IntDatum(k), types.IntDatum(v)} }
			send(0, nil, r(1, 7), r(3, 8)) // stream rows before the table caught up: held
			send(1, nil, r(1, 100), r(2, 200))
			if len(got) != 0 {
				t.Fatalf("looked up before the table caught up: %v", got)
			}
			if err := j.OnControl(ctx, Control{Kind: CaughtUp, Input: 1}, collect); err != nil {
				t.Fatal(err) // now 1 matches, 3 does not
			}
			send(1, []Op{UpdateBefore, UpdateAfter}, r(1, 100), r(1, 101)) // a table update: nothing
			send(0, nil, r(1, 9))                                          // sees the new table row
			send(1, []Op{Delete}, r(2, 200))                               // a table delete: nothing
			send(0, nil, r(2, 10))                                         // no match any more
			want := []string{"+I (1, 7, 1, 100)", "+I (1, 9, 1, 101)"}
			if kind == plan.LeftJoin {
				want = []string{"+I (1, 7, 1, 100)", "+I (3, 8, NULL, NULL)", "+I (1, 9, 1, 101)", "+I (2, 10, NULL, NULL)"}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
			if held := env.Metrics.StateKeys.Load(); held != 1 {
				t.Fatalf("holds %d rows; want the table's 1 (stream rows are not kept)", held)
			}
		})
	}
}
