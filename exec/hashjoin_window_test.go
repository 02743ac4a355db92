package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
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

func runWindowedJoin(t *testing.T, kind plan.JoinKind, lo, hi int64, seed uint64) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	ts := []types.T{types.BigIntT, types.TimestampT(3)}
	tsRef := func(ord int) plan.Expr { return &plan.InputRef{Ord: ord, Typ: types.TimestampT(3)} }
	plus := func(d int64) plan.Expr {
		return &plan.Binary{Op: plan.OpAdd, L: tsRef(3), R: &plan.Const{Val: types.IntDatum(d), Typ: types.IntervalT}, Typ: types.TimestampT(3)}
	}
	cond := &plan.And{Args: []plan.Expr{ // l.ts BETWEEN r.ts + lo AND r.ts + hi
		&plan.Binary{Op: plan.OpGe, L: tsRef(1), R: plus(lo), Typ: types.BoolT},
		&plan.Binary{Op: plan.OpLe, L: tsRef(1), R: plus(hi), Typ: types.BoolT},
	}}
	j := NewHashJoin(HashJoinConfig{Kind: kind, Left: ts, Right: ts, LeftKeys: []int{0}, RightKeys: []int{0},
		Residual: cond, Names: []string{"lk", "lt", "rk", "rt"}, Windowed: true, LeftTime: 1, RightTime: 1, Lo: lo, Hi: hi})
	env := NewTestEnv(alloc)
	ctx := context.Background()
	if err := j.Open(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	got := map[string]int{}
	collect := EmitterFunc(func(ctx context.Context, c Chunk) error {
		if !c.AppendOnly() {
			t.Fatalf("a windowed join retracted: %v", c.Ops)
		}
		for _, row := range types.Rows(c.Batch, []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT}) {
			var parts []string
			for _, d := range row {
				if d.Null {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, fmt.Sprint(d.I))
				}
			}
			got[strings.Join(parts[:2], ",")+"|"+strings.Join(parts[2:], ",")]++
		}
		return nil
	})
	rng := rand.New(rand.NewPCG(seed, 11))
	sides := [2][]joinRow{}
	now, wm := int64(100), int64(0)
	maxHeld := int64(0)
	for step := 0; step < 300; step++ {
		side := rng.IntN(2)
		var rows [][]types.Datum
		for k := 1 + rng.IntN(3); k > 0; k-- {
			r := joinRow{k: int64(rng.IntN(3)), v: now + int64(rng.IntN(5)), kNull: rng.IntN(10) == 0}
			sides[side] = append(sides[side], r)
			d := r.datums()
			d[1] = types.IntDatum(r.v) // a timestamp in ms
			rows = append(rows, d)
		}
		rec := types.BuildRecord(alloc, []string{"k", "ts"}, ts, rows)
		err := j.Process(ctx, side, Chunk{Batch: rec}, collect)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		now++
		if step%10 == 9 {
			wm = now - 2 // every later row has ts >= now > wm
			if err := j.OnControl(ctx, Control{Kind: Watermark, Watermark: wm}, collect); err != nil {
				t.Fatal(err)
			}
			maxHeld = max(maxHeld, env.Metrics.StateKeys.Load())
		}
	}
	if err := j.OnControl(ctx, Control{Kind: Watermark, Watermark: MaxWatermark}, collect); err != nil {
		t.Fatal(err)
	}
	if held := env.Metrics.StateKeys.Load(); held != 0 {
		t.Fatalf("%d rows held after the watermark passed them all", held)
	}
	// The rows of a window of about 10+|lo|+|hi| ms, not all 600-odd rows.
	if maxHeld > 150 {
		t.Fatalf("held up to %d rows: state is not freed as the watermark passes", maxHeld)
	}
	want := map[string]int{}
	match := func(l, r joinRow) bool {
		return !l.kNull && !r.kNull && l.k == r.k && l.v-r.v >= lo && l.v-r.v <= hi
	}
	text := func(x *joinRow) string {
		switch {
		case x == nil:
			return "NULL,NULL"
		case x.kNull:
			return fmt.Sprintf("NULL,%d", x.v)
		}
		return fmt.Sprintf("%d,%d", x.k, x.v)
	}
	rightMatched := make([]bool, len(sides[1]))
	for _, l := range sides[0] {
		n := 0
		for ri, r := range sides[1] {
			if match(l, r) {
				n++
				rightMatched[ri] = true
				want[text(&l)+"|"+text(&r)]++
			}
		}
		if n == 0 && kind.PreservesLeft() {
			want[text(&l)+"|NULL,NULL"]++
		}
	}
	if kind.PreservesRight() {
		for ri, r := range sides[1] {
			if !rightMatched[ri] {
				want["NULL,NULL|"+text(&r)]++
			}
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: got %d, want %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: got %d, want none", k, n)
		}
	}
}
