package plan

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

// TestRewritesKeepPositions checks that WithChildren, and so Rewrite (which
// the optimizer's rules and physical planning use), keeps the source
// position of the expressions that can fail at run time.
func TestRewritesKeepPositions(t *testing.T) {
	at := func(col int) Pos { return Pos{Offset: 10 + col, Line: 2, Col: col} }
	ref := &ColRef{ID: 1, Name: "x", Typ: types.BigIntT}
	one := &Const{Val: types.IntDatum(1), Typ: types.BigIntT}
	e := &Func{Name: "abs", Typ: types.BigIntT, Pos: at(1), Args: []Expr{
		&Cast{To: types.BigIntT, Pos: at(5), Arg: &Unary{Op: OpNeg, Typ: types.BigIntT, Pos: at(10),
			Arg: &Binary{Op: OpAdd, L: ref, R: one, Typ: types.BigIntT, Pos: at(12)}}}}}
	bound := MapColRefs(e, func(*ColRef) Expr { return &InputRef{Ord: 0, Name: "x", Typ: types.BigIntT} })
	var got []Pos
	Walk(bound, func(x Expr) bool {
		switch x := x.(type) {
		case *Func:
			got = append(got, x.Pos)
		case *Cast:
			got = append(got, x.Pos)
		case *Unary:
			got = append(got, x.Pos)
		case *Binary:
			got = append(got, x.Pos)
		}
		return true
	})
	want := []Pos{at(1), at(5), at(10), at(12)}
	if bound == e || len(got) != len(want) {
		t.Fatalf("the rewrite gave %s with positions %v", bound, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("position %d is %v, want %v", i, got[i], want[i])
		}
	}
}

// TestMapColRefsReusesUnchanged checks that MapColRefs replaces every
// column reference, and returns e itself when fn keeps them all.
func TestMapColRefsReusesUnchanged(t *testing.T) {
	a := &ColRef{ID: 1, Name: "a", Typ: types.BigIntT}
	b := &ColRef{ID: 2, Name: "b", Typ: types.BigIntT}
	e := &And{Args: []Expr{&IsNull{Arg: a}, &Binary{Op: OpLt, L: a, R: b, Typ: types.BoolT}}}
	if got := MapColRefs(e, func(r *ColRef) Expr { return r }); got != Expr(e) {
		t.Errorf("keeping every reference rebuilt %s", got)
	}
	var seen []ColumnID
	got := MapColRefs(e, func(r *ColRef) Expr {
		seen = append(seen, r.ID)
		if r.ID == 2 {
			return &Const{Val: types.IntDatum(7), Typ: types.BigIntT}
		}
		return r
	})
	if len(seen) != 3 || got.String() == e.String() || ColsUsed(got).Contains(2) || !ColsUsed(got).Contains(1) {
		t.Errorf("replacing b gave %s after visiting %v", got, seen)
	}
	if e.Args[0] != got.(*And).Args[0] {
		t.Error("the unchanged conjunct was rebuilt")
	}
}
