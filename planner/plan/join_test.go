package plan

import (
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

// TestJoinOutputFollowsItsSides checks the cached output of a join: it is
// computed once, but a join whose sides or kind change while the planner
// builds it (makeLookup swaps them) reports the new columns.
func TestJoinOutputFollowsItsSides(t *testing.T) {
	l := &Values{Cols: ColList{1, 2}}
	r := &Values{Cols: ColList{3}}
	j := &Join{Kind: InnerJoin, Left: l, Right: r}
	if got := j.Output(); !slices.Equal(got, ColList{1, 2, 3}) {
		t.Fatalf("Output() = %v", got)
	}
	if got := OutputSet(j); !slices.Equal(got.Ordered(), []ColumnID{1, 2, 3}) {
		t.Fatalf("OutputSet() = %v", got)
	}
	j.Left, j.Right = r, l
	if got := j.Output(); !slices.Equal(got, ColList{3, 1, 2}) {
		t.Fatalf("Output() after swapping sides = %v", got)
	}
	j.Kind = SemiJoin
	if got := j.Output(); !slices.Equal(got, ColList{3}) {
		t.Fatalf("Output() of a semi join = %v", got)
	}
	if got := OutputSet(j); !slices.Equal(got.Ordered(), []ColumnID{3}) {
		t.Fatalf("OutputSet() of a semi join = %v", got)
	}
	j.Kind = InnerJoin
	if got := OutputSet(j); !slices.Equal(got.Ordered(), []ColumnID{1, 2, 3}) || !slices.Equal(j.Output(), ColList{3, 1, 2}) {
		t.Fatalf("OutputSet() = %v, Output() = %v back as an inner join", got, j.Output())
	}
}

// TestWindowStartJoinIsWindowed checks a join of two running aggregates
// on window_start (Nexmark q5's shape): both sides retract, and their
// window_start follows the watermark a window behind, so the join frees a
// window's rows once the watermark passes its end, and its output keeps
// the lag. A side that retracts for longer than the other side's lag lets
// it keep a row is refused, and of two bounded pairs the one that frees
// rows sooner is chosen.
func TestWindowStartJoinIsWindowed(t *testing.T) {
	f := newPropsFixture(true)
	ts := types.TimestampT(3)
	counts := func(start, end ColumnID, out ColumnID) *Aggregate {
		w := &Window{Input: f.scan(), Kind: Hop, TimeCol: 2, Size: 10_000, Slide: 2_000, Start: start, End: end}
		return &Aggregate{Input: w, Group: ColList{1, start}, WindowClose: start, WindowCloseOffset: 10_000,
			Aggs: []AggCall{{Func: AggCountStar, Out: out, Typ: types.BigIntT}}}
	}
	left := counts(4, 5, 6)
	right := &Aggregate{Input: counts(14, 15, 16), Group: ColList{14},
		Aggs: []AggCall{{Func: AggMax, Arg: 16, ArgTyp: types.BigIntT, Out: 17, Typ: types.BigIntT}}}
	eq := func(l, r ColumnID) Expr {
		return &Binary{Op: OpEq, L: &ColRef{ID: l, Typ: ts}, R: &ColRef{ID: r, Typ: ts}, Typ: types.BoolT}
	}
	j := &Join{Kind: InnerJoin, Left: left, Right: right, On: eq(4, 14)}
	tb, ok := j.Windowed()
	if !ok || tb.Left != 4 || tb.Right != 14 || tb.Lo != 0 || tb.Hi != 0 || tb.LeftLag != 10_000 || tb.RightLag != 10_000 {
		t.Fatalf("Windowed() = %+v, %v", tb, ok)
	}
	if lag, ok := j.Props().TimeLag(4); !ok || lag != 10_000 {
		t.Errorf("the join's window_start: lag %d, %v; want 10000", lag, ok)
	}

	// The right side a time column (lag 0): a left row, retracted until
	// the watermark passes its start + 10 s, would be freed at its start.
	scan := f.scan()
	j = &Join{Kind: InnerJoin, Left: left, Right: scan, On: eq(4, 2)}
	if tb, ok := j.Windowed(); ok {
		t.Errorf("a retracting side freed before its lag: Windowed() = %+v", tb)
	}

	// window_end and window_start both equal: window_end frees sooner.
	left = counts(4, 5, 6)
	left.Group = ColList{1, 4, 5}
	right2 := counts(14, 15, 16)
	right2.Group = ColList{1, 14, 15}
	j = &Join{Kind: InnerJoin, Left: left, Right: right2, On: MakeAnd([]Expr{eq(4, 14), eq(5, 15)})}
	if tb, ok := j.Windowed(); !ok || tb.Left != 5 || tb.Right != 15 || tb.LeftLag != 0 || tb.RightLag != 0 {
		t.Errorf("Windowed() = %+v, %v; want window_end's bound", tb, ok)
	}
}
