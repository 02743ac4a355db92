package plan

import (
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// countOver builds SELECT k, COUNT(*), SUM(v) FROM obj WHERE v > min
// GROUP BY k with column IDs from base on.
func countOver(obj *catalog.Object, base ColumnID, min int64, sumFunc AggFunc) Node {
	k, v, cnt, sum := base, base+1, base+2, base+3
	scan := &Scan{Object: obj, Cols: ColList{k, v}, Ords: []int{0, 1}}
	pred := &Binary{Op: OpGt, L: &ColRef{ID: v, Typ: types.BigIntT}, R: &Const{Val: types.IntDatum(min), Typ: types.BigIntT}, Typ: types.BoolT}
	return &Aggregate{Input: &Filter{Input: scan, Pred: pred}, Group: ColList{k},
		Aggs: []AggCall{{Func: AggCountStar, Out: cnt, Typ: types.BigIntT}, {Func: sumFunc, Arg: v, ArgTyp: types.BigIntT, Out: sum, Typ: types.BigIntT}}}
}

func TestSameTree(t *testing.T) {
	bids := &catalog.Object{ID: 7, Name: "bids", Kind: catalog.Stream}
	other := &catalog.Object{ID: 8, Name: "other", Kind: catalog.Stream}
	a := countOver(bids, 1, 100, AggSum)
	m := map[ColumnID]ColumnID{}
	if !SameTree(a, countOver(bids, 50, 100, AggSum), m) {
		t.Fatal("the same aggregate bound apart differs")
	}
	for i, c := range a.Output() {
		if want := ColumnID(50 + []int{0, 2, 3}[i]); m[c] != want {
			t.Errorf("output column %d maps to %d, want %d", c, m[c], want)
		}
	}
	for name, b := range map[string]Node{
		"another object":    countOver(other, 50, 100, AggSum),
		"another constant":  countOver(bids, 50, 200, AggSum),
		"another aggregate": countOver(bids, 50, 100, AggMax),
		"no filter":         a.(*Aggregate).Input.(*Filter).Input,
	} {
		if SameTree(a, b, map[ColumnID]ColumnID{}) {
			t.Errorf("%s: the same tree", name)
		}
	}
	// An operator it does not know is never the same.
	sorted := &Sort{Input: a, Keys: []SortKey{{Col: 1}}}
	if SameTree(sorted, &Sort{Input: countOver(bids, 50, 100, AggSum), Keys: []SortKey{{Col: 50}}}, map[ColumnID]ColumnID{}) {
		t.Error("sorts are the same")
	}
}

func TestSameExprMapsColumns(t *testing.T) {
	x := &Func{Name: "lower", Args: []Expr{&ColRef{ID: 3, Typ: types.VarcharT}}, Typ: types.VarcharT}
	y := &Func{Name: "lower", Args: []Expr{&ColRef{ID: 9, Typ: types.VarcharT}}, Typ: types.VarcharT}
	if SameExpr(x, y, nil) {
		t.Error("different columns are the same without a mapping")
	}
	if !SameExpr(x, y, map[ColumnID]ColumnID{3: 9}) {
		t.Error("mapped columns differ")
	}
	if SameExpr(x, y, map[ColumnID]ColumnID{3: 4}) {
		t.Error("columns mapped elsewhere are the same")
	}
	c1 := &Case{Whens: []When{{Cond: &ColRef{ID: 1, Typ: types.BoolT}, Result: &Const{Val: types.IntDatum(1), Typ: types.BigIntT}}}, Typ: types.BigIntT}
	c2 := &Case{Whens: []When{{Cond: &ColRef{ID: 1, Typ: types.BoolT}, Result: &Const{Val: types.IntDatum(1), Typ: types.BigIntT}}}, Typ: types.BigIntT}
	if !SameExpr(c1, c2, nil) {
		t.Error("CASEs without ELSE differ")
	}
}
