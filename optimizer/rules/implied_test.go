package rules

import (
	"fmt"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// crossChain is n relations of one column k, cross-joined left-deep as a
// comma-separated FROM binds them, the first filtered by below(its k)
// when below is set.
func crossChain(md *plan.Metadata, n int, below func(k plan.ColumnID) plan.Expr) (plan.Node, []plan.ColumnID) {
	var cols []plan.ColumnID
	var root plan.Node
	for i := range n {
		k := md.AddColumn("k", fmt.Sprintf("t%d", i), types.BigIntT, false)
		cols = append(cols, k)
		var rel plan.Node = &plan.Values{Cols: plan.ColList{k}}
		if i == 0 && below != nil {
			rel = &plan.Filter{Input: rel, Pred: below(k)}
		}
		if root == nil {
			root = rel
		} else {
			root = &plan.Join{Kind: plan.InnerJoin, Left: root, Right: rel}
		}
	}
	return root, cols
}

func eqConst(md *plan.Metadata, col plan.ColumnID, v int64) plan.Expr {
	return &plan.Binary{Op: plan.OpEq, L: md.Ref(col), R: &plan.Const{Val: types.IntDatum(v), Typ: types.BigIntT}, Typ: types.BoolT}
}

// TestImpliedSkipsSubtreesWithoutConditions checks a filter of 200
// conjuncts over a 200-deep tree of cross joins, the plan a WHERE clause
// starts as over a comma-separated FROM: no node below can imply a
// conjunct, so each is decided at the top instead of after a walk down
// the tree (20,000 steps here, and a cost cubic in the depth while the
// conjuncts are pushed down one level at a time). A conjunct a filter at
// the bottom does apply is still found.
func TestImpliedSkipsSubtreesWithoutConditions(t *testing.T) {
	const n = 200
	md := plan.NewMetadata()
	root, cols := crossChain(md, n, nil)
	var conj []plan.Expr
	for i := range n {
		conj = append(conj, eqConst(md, cols[i], int64(i)))
	}
	c := &Context{Md: md}
	if _, changed, err := (EliminateRedundant{}).Apply(c, &plan.Filter{Input: root, Pred: plan.MakeAnd(conj)}); err != nil || changed {
		t.Fatalf("nothing below implies a conjunct: changed=%v err=%v", changed, err)
	}
	if c.impliedSteps > 2*n {
		t.Errorf("%d conjuncts over a %d-deep tree took %d steps", n, n, c.impliedSteps)
	}

	md = plan.NewMetadata()
	root, cols = crossChain(md, n, func(k plan.ColumnID) plan.Expr { return eqConst(md, k, 0) })
	f := &plan.Filter{Input: root, Pred: plan.MakeAnd([]plan.Expr{eqConst(md, cols[0], 0), eqConst(md, cols[1], 1)})}
	out, changed, err := (EliminateRedundant{}).Apply(&Context{Md: md}, f)
	if err != nil || !changed {
		t.Fatalf("the conjunct applied at the bottom must go: changed=%v err=%v", changed, err)
	}
	if got := out.(*plan.Filter).Pred.String(); got != "k = 1" {
		t.Fatalf("kept %s, want k = 1", got)
	}
}
