package multiset

import (
	"math"
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	key := func(f float64) string { return ApproxKey(f) }
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) }
	// 1 and 2 twice on each side; 0.3 vs 0.1+0.2 only pairwise; 5 and 6
	// on one side each; -0 matches 0 by key.
	a := []float64{1, 2, 2, 0.1 + 0.2, 5, math.Copysign(0, -1), 1.0000000049999}
	b := []float64{2, 1, 0.3, 2, 6, 0, 1.0000000050001}
	onlyA, onlyB := Diff(a, b, key, near)
	if !slices.Equal(onlyA, []float64{5}) || !slices.Equal(onlyB, []float64{6}) {
		t.Fatalf("onlyA %v, onlyB %v", onlyA, onlyB)
	}
	if ApproxKey(1.0000000049999) == ApproxKey(1.0000000050001) {
		t.Fatal("the case meant to round apart rounds alike")
	}
}
