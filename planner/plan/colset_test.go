package plan

import (
	"slices"
	"testing"
)

func TestMakeColSetSortsAndDeduplicates(t *testing.T) {
	ids := []ColumnID{5, 3, 9, 3, 1, 5}
	s := MakeColSet(ids...)
	if want := []ColumnID{1, 3, 5, 9}; !slices.Equal(s.Ordered(), want) {
		t.Fatalf("MakeColSet(%v) = %v, want %v", ids, s.Ordered(), want)
	}
	if !slices.Equal(ids, []ColumnID{5, 3, 9, 3, 1, 5}) {
		t.Fatalf("MakeColSet changed its argument: %v", ids)
	}
	if !MakeColSet().Empty() || MakeColSet(7).Len() != 1 {
		t.Fatalf("empty or single sets wrong")
	}
}

func TestColSetUnionMerges(t *testing.T) {
	a, b := MakeColSet(1, 4, 6), MakeColSet(2, 4, 7, 9)
	u := a.Union(b)
	if want := []ColumnID{1, 2, 4, 6, 7, 9}; !slices.Equal(u.Ordered(), want) {
		t.Fatalf("%v ∪ %v = %v, want %v", a, b, u, want)
	}
	// The union owns its storage: adding to it leaves both sides alone.
	u.Add(3)
	if a.Len() != 3 || b.Len() != 4 || a.Contains(3) || b.Contains(3) {
		t.Fatalf("Union shares storage with its operands: %v %v", a, b)
	}
	e := ColSet{}.Union(b)
	e.Add(0)
	if b.Contains(0) {
		t.Fatalf("Union with an empty set shares storage")
	}
}
