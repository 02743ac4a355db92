package plan_test

import (
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// deepSum is ((((a + 1) + 1) ...) + 1), n additions deep, as the binder
// makes of a + 1 + 1 + ...
func deepSum(n int) plan.Expr {
	var e plan.Expr = &plan.ColRef{ID: 1, Name: "a", Typ: types.BigIntT}
	one := &plan.Const{Val: types.IntDatum(1), Typ: types.BigIntT}
	for range n {
		e = &plan.Binary{Op: plan.OpAdd, L: e, R: one, Typ: types.BigIntT}
	}
	return e
}

func TestDeepExpressionPrints(t *testing.T) {
	if got, want := deepSum(3).String(), "a + 1 + 1 + 1"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	right := &plan.Binary{Op: plan.OpSub, L: &plan.ColRef{Name: "a"}, R: &plan.Binary{Op: plan.OpSub, L: &plan.ColRef{Name: "b"}, R: &plan.ColRef{Name: "c"}}}
	cond := &plan.Or{Args: []plan.Expr{&plan.And{Args: []plan.Expr{&plan.ColRef{Name: "x"}, &plan.ColRef{Name: "y"}}}, &plan.Not{Arg: &plan.ColRef{Name: "z"}}}}
	for e, want := range map[plan.Expr]string{right: "a - (b - c)", cond: "x AND y OR NOT z"} {
		if got := e.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

// TestDeepExpressionPrintsLinearly prints expressions 1,000 and 4,000
// levels deep: one builder for the whole expression allocates in
// proportion to its text, where concatenating each level's string into its
// parent's copied the text at every level.
func TestDeepExpressionPrintsLinearly(t *testing.T) {
	size := func(n int) (uint64, int) {
		e := deepSum(n)
		var s string
		b := plantest.AllocBytes(func() { s = e.String() })
		if strings.Count(s, "+ 1") != n {
			t.Fatalf("printed %d additions of %d", strings.Count(s, "+ 1"), n)
		}
		return b, len(s)
	}
	small, _ := size(1000)
	large, text := size(4000)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("printing 4000 levels allocates %.1f× the bytes of 1000 (%d bytes for %d of text)", ratio, large, text)
	}
}
