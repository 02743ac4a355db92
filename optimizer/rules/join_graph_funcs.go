package rules

import (
	"slices"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// This file holds ReorderJoins' join graph: a flattened inner-join tree
// with, for each conjunct of its conditions, the relations it reads, and
// the join trees the searches build over it. Every cardinality is computed
// incrementally from the conjuncts that link two subtrees, so a join costs
// time in the number of conditions it gains, not in the size of the tree.

// joinGraph is a flattened inner-join tree: its relations (the inputs that
// are not reorderable joins, in the written tree's left-to-right order),
// the conjuncts of all its conditions, and the relations each reads.
type joinGraph struct {
	rels  []plan.Node
	size  []float64 // the estimated rows of each relation
	conds []plan.Expr
	// condRels lists, per conjunct, the relations it reads in increasing
	// order; nil when it reads none, or a column no relation produces.
	condRels [][]int
	sel      []float64 // per conjunct linking relations, its selectivity
	links    [][]int   // per relation, the conjuncts reading it and another
	// owner and seen are scratch for linking: the id of the tree each
	// relation is in, and the last linking call that looked at a conjunct.
	owner   []int
	seen    []int
	nextID  int
	visit   int
	evalled int // joins whose size was estimated (for tests)
}

// joinTree is an order of some of the relations: a leaf (rel ≥ 0) or the
// join of two trees.
type joinTree struct {
	rel         int // the relation of a leaf, -1 for a join
	left, right *joinTree
	rels        []int   // the relations it joins
	raw         float64 // its estimated rows, before clamping to one
	cost        float64 // C_out: the sum of the sizes of its joins' results
	id          int     // set by own
}

// rows is the tree's estimated result size, at least one row.
func (t *joinTree) rows() float64 { return max(t.raw, 1) }

// newJoinGraph flattens the inner-join tree rooted at root.
func newJoinGraph(est *cost.Estimator, root plan.Node) *joinGraph {
	g := &joinGraph{}
	g.flatten(root)
	relOf := map[plan.ColumnID]int{}
	for i, r := range g.rels {
		for _, id := range r.Output() {
			relOf[id] = i
		}
		g.size = append(g.size, est.Size(r))
	}
	g.links = make([][]int, len(g.rels))
	g.sel = make([]float64, len(g.conds))
	g.condRels = make([][]int, len(g.conds))
	for p, cj := range g.conds {
		var rs []int
		for _, id := range plan.ColsUsed(cj).Ordered() {
			i, ok := relOf[id]
			if !ok {
				rs = nil
				break
			}
			rs = append(rs, i)
		}
		slices.Sort(rs)
		rs = slices.Compact(rs)
		g.condRels[p] = rs
		if len(rs) >= 2 {
			g.sel[p] = est.JoinSelectivity(cj)
			for _, i := range rs {
				g.links[i] = append(g.links[i], p)
			}
		}
	}
	g.owner = make([]int, len(g.rels))
	g.seen = make([]int, len(g.conds))
	return g
}

func (g *joinGraph) flatten(n plan.Node) {
	if j, ok := reorderableJoin(n); ok {
		g.flatten(j.Left)
		g.flatten(j.Right)
		if j.On != nil {
			g.conds = append(g.conds, plan.Conjuncts(j.On)...)
		}
		return
	}
	g.rels = append(g.rels, n)
}

// all lists every relation.
func (g *joinGraph) all() []int {
	out := make([]int, len(g.rels))
	for i := range out {
		out[i] = i
	}
	return out
}

// leaf is the tree of relation i alone.
func (g *joinGraph) leaf(i int) *joinTree {
	return &joinTree{rel: i, rels: []int{i}, raw: g.size[i]}
}

// own gives t a fresh id and records it as the owner of t's relations.
func (g *joinGraph) own(t *joinTree) {
	g.nextID++
	t.id = g.nextID
	for _, r := range t.rels {
		g.owner[r] = t.id
	}
}

// linking calls fn, in increasing order, with each conjunct that links a
// and b: one that reads relations of both and of no other tree. Both
// trees must be owned (own) since their relations last changed hands.
func (g *joinGraph) linking(a, b *joinTree, fn func(p int)) {
	small := a
	if len(b.rels) < len(a.rels) {
		small = b
	}
	g.visit++
	var found []int
	for _, r := range small.rels {
		for _, p := range g.links[r] {
			if g.seen[p] == g.visit {
				continue
			}
			g.seen[p] = g.visit
			inA, inB, other := false, false, false
			for _, q := range g.condRels[p] {
				switch g.owner[q] {
				case a.id:
					inA = true
				case b.id:
					inB = true
				default:
					other = true
				}
			}
			if inA && inB && !other {
				found = append(found, p)
			}
		}
	}
	slices.Sort(found)
	for _, p := range found {
		fn(p)
	}
}

// joinRows estimates the rows of the join of a and b (before clamping to
// one); both must be owned.
func (g *joinGraph) joinRows(a, b *joinTree) float64 {
	g.evalled++
	raw := a.raw * b.raw
	g.linking(a, b, func(p int) { raw *= g.sel[p] })
	return raw
}

// join is the tree joining a and b (a on the left), with its size and
// cost; both must be owned.
func (g *joinGraph) join(a, b *joinTree) *joinTree {
	t := &joinTree{rel: -1, left: a, right: b, raw: g.joinRows(a, b),
		rels: append(append(make([]int, 0, len(a.rels)+len(b.rels)), a.rels...), b.rels...)}
	t.cost = a.cost + b.cost + t.rows()
	return t
}

// writtenTree is the tree of the join as written, rooted at n.
func (g *joinGraph) writtenTree(n plan.Node) *joinTree {
	next := 0
	var walk func(n plan.Node) *joinTree
	walk = func(n plan.Node) *joinTree {
		if j, ok := reorderableJoin(n); ok {
			l, r := walk(j.Left), walk(j.Right)
			g.own(l)
			g.own(r)
			return g.join(l, r)
		}
		t := g.leaf(next)
		next++
		return t
	}
	return walk(n)
}

// build makes the plan of t: each linking conjunct at the lowest join
// that has its columns, and at the root the conjuncts that read fewer
// than two relations (pushed below already, or constant; kept, not lost).
func (g *joinGraph) build(t *joinTree) plan.Node {
	out := g.buildJoin(t)
	j, ok := out.(*plan.Join)
	if !ok {
		return out
	}
	var on []plan.Expr
	if j.On != nil {
		on = plan.Conjuncts(j.On)
	}
	for p, rs := range g.condRels {
		if len(rs) < 2 {
			on = append(on, g.conds[p])
		}
	}
	if len(on) > 0 {
		j.On = plan.MakeAnd(on)
	}
	return j
}

func (g *joinGraph) buildJoin(t *joinTree) plan.Node {
	if t.rel >= 0 {
		return g.rels[t.rel]
	}
	l, r := g.buildJoin(t.left), g.buildJoin(t.right)
	g.own(t.left)
	g.own(t.right)
	var on []plan.Expr
	g.linking(t.left, t.right, func(p int) { on = append(on, g.conds[p]) })
	j := &plan.Join{Kind: plan.InnerJoin, Left: l, Right: r}
	if len(on) > 0 {
		j.On = plan.MakeAnd(on)
	}
	return j
}
