package rules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// randomJoinTree builds the shape of the planning benchmarks: n relations
// of two columns (k, v) and rows 1..n, joined left-deep as written, with an
// equality linking each relation to a random earlier one (a random tree
// of conditions) and the conditions on the topmost join.
func randomJoinTree(md *plan.Metadata, n int, seed uint64) plan.Node {
	r := rand.New(rand.NewPCG(seed, 1))
	rels := make([]*plan.Values, n)
	for i := range rels {
		t := fmt.Sprintf("t%d", i)
		k := md.AddColumn("k", t, types.BigIntT, false)
		v := md.AddColumn("v", t, types.BigIntT, false)
		rels[i] = &plan.Values{Cols: plan.ColList{k, v}, Rows: make([][]types.Datum, 1+r.IntN(n))}
	}
	var conds []plan.Expr
	for i := 1; i < n; i++ {
		p := r.IntN(i)
		conds = append(conds, &plan.Binary{Op: plan.OpEq, L: md.Ref(rels[i].Cols[0]), R: md.Ref(rels[p].Cols[1]), Typ: types.BoolT})
	}
	var root plan.Node = rels[0]
	for i := 1; i < n; i++ {
		root = &plan.Join{Kind: plan.InnerJoin, Left: root, Right: rels[i]}
	}
	root.(*plan.Join).On = plan.MakeAnd(conds)
	return root
}

// relsOf lists the relations of a join tree, in order.
func relsOf(t *joinTree) []int {
	if t.rel >= 0 {
		return []int{t.rel}
	}
	return append(relsOf(t.left), relsOf(t.right)...)
}

func TestJoinSearchKind(t *testing.T) {
	if chooseJoinSearch(MaxExhaustiveJoin) != exhaustiveSearch || chooseJoinSearch(MaxExhaustiveJoin+1) != greedySearch {
		t.Fatalf("the exhaustive search must cover up to %d relations and no more", MaxExhaustiveJoin)
	}
}

// TestJoinSearchWork bounds the joins each search estimates, the measure
// of planning work the searches control: dynamic programming considers
// each split of each subset once (3^n/2), and greedy operator ordering
// costs only the pairs a conjunct links at each of its n-1 steps. Both
// return every relation exactly once, and (on these inputs) an order no
// more costly than the written one. Relations past 64 (the width of the
// exhaustive search's bit sets) are fine for the greedy search.
func TestJoinSearchWork(t *testing.T) {
	for _, n := range []int{3, 7, MaxExhaustiveJoin, 11, 64, 200} {
		md := plan.NewMetadata()
		root := randomJoinTree(md, n, uint64(n))
		g := newJoinGraph(&cost.Estimator{Md: md}, root)
		written := g.writtenTree(root)
		search := chooseJoinSearch(n)
		g.evalled = 0
		chosen := search.run(g)
		bound := 1
		if search == exhaustiveSearch {
			for range n {
				bound *= 3
			}
			bound = bound/2 + n // every split of every subset, and the tree built
		} else {
			bound = n * len(g.conds) // each step costs at most one join per conjunct
		}
		if g.evalled > bound {
			t.Errorf("%d relations: %s estimated %d joins, more than %d", n, search.describe(n), g.evalled, bound)
		}
		t.Logf("%d relations: %d joins estimated (bound %d), cost %g vs written %g", n, g.evalled, bound, chosen.cost, written.cost)
		got := relsOf(chosen)
		slices.Sort(got)
		if !slices.Equal(got, g.all()) {
			t.Errorf("%d relations: the chosen tree joins %v", n, got)
		}
		if chosen.cost > written.cost*(1+1e-9) {
			t.Errorf("%d relations: chosen cost %g above the written order's %g", n, chosen.cost, written.cost)
		}
	}
}

// TestJoinSearchBuildsEveryCondition rebuilds a searched tree as a plan:
// each conjunct appears once, at a join that has its columns.
func TestJoinSearchBuildsEveryCondition(t *testing.T) {
	for _, n := range []int{5, 40} {
		md := plan.NewMetadata()
		root := randomJoinTree(md, n, 7)
		g := newJoinGraph(&cost.Estimator{Md: md}, root)
		out := g.build(chooseJoinSearch(n).run(g))
		placed := 0
		var walk func(n plan.Node)
		walk = func(n plan.Node) {
			j, ok := n.(*plan.Join)
			if !ok {
				return
			}
			walk(j.Left)
			walk(j.Right)
			if j.On == nil {
				return
			}
			have := plan.OutputSet(j)
			for _, cj := range plan.Conjuncts(j.On) {
				placed++
				if !plan.ColsUsed(cj).SubsetOf(have) {
					t.Errorf("%d relations: %s placed below its columns", n, cj)
				}
				if plan.ColsUsed(cj).SubsetOf(plan.OutputSet(j.Left)) || plan.ColsUsed(cj).SubsetOf(plan.OutputSet(j.Right)) {
					t.Errorf("%d relations: %s placed above its lowest join", n, cj)
				}
			}
		}
		walk(out)
		if placed != n-1 {
			t.Errorf("%d relations: %d conjuncts placed, want %d", n, placed, n-1)
		}
	}
}
