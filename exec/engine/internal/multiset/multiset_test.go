package multiset

import (
	"math"
	"slices"
	"strconv"
	"strings"
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

func TestDiffRows(t *testing.T) {
	cell := func(v any, _ int) Cell {
		switch x := v.(type) {
		case nil:
			return Cell{Null: true, Show: "NULL"}
		case float64:
			return Cell{Approx: true, F: x, Show: strconv.FormatFloat(x, 'g', -1, 64)}
		}
		return Cell{S: v.(string), Show: v.(string)}
	}
	a := Rows([][]any{{"x", 0.1 + 0.2}, {"x", 1.0}, {nil, 2.0}, {"y", 1.0}}, cell)
	b := Rows([][]any{{nil, 2.0}, {"x", 0.3}, {"x", 1.0}, {"y", nil}}, cell)
	onlyA, onlyB := DiffRows(a, b, Near)
	if !slices.Equal(onlyA, []string{"y | 1"}) || !slices.Equal(onlyB, []string{"y | NULL"}) {
		t.Fatalf("onlyA %q, onlyB %q", onlyA, onlyB)
	}
	// A text "1" never equals the number 1, nor NULL the empty string.
	if (Cell{S: "1"}).Equal(Cell{Approx: true, F: 1}, Near) || (Cell{Null: true}).Equal(Cell{S: ""}, Near) {
		t.Fatal("cells of different kinds are equal")
	}
	var out strings.Builder
	WriteRows(&out, "3 rows:", []string{"a", "b", "c"}, 2)
	if got := out.String(); got != "3 rows:\n  a\n  b\n  ... and 1 more\n" {
		t.Fatalf("WriteRows wrote %q", got)
	}
}
