package plan

import (
	"slices"
	"testing"
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
