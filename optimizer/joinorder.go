package optimizer

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// ReorderJoins is the cost-based join-ordering pass. It finds each maximal
// tree of regular inner joins (not lookup, interval or window joins, which
// keep their shape, nor outer, semi or anti joins, which do not commute),
// and rebuilds it in the order that minimizes the sum of the estimated
// sizes of its intermediate results (C_out): exhaustively by dynamic
// programming over the subsets of up to maxExhaustive relations, avoiding
// cross products where a condition connects the relations, greedily for
// more. Each condition is placed at the lowest join that has its columns.
//
// Safety: inner joins are associative and commutative, and a conjunct of
// an inner join's condition filters the same pairs wherever it is
// evaluated once its columns are present, with or without retractions.
// Columns are referred to by ID, so a changed column order changes no
// answer; a Project restores the order when the tree's order changed.
// Profitability: smaller intermediate results mean less state in the
// joins and less data shuffled between them.
const ReorderJoinsName = "ReorderJoins"

// maxExhaustive is the largest number of relations ordered exhaustively.
const maxExhaustive = 8

// joinGraph is a flattened inner-join tree: its relations and the
// conjuncts of all its conditions.
type joinGraph struct {
	rels  []plan.Node
	cols  []plan.ColSet
	conds []plan.Expr
	est   *cost.Estimator
	size  []float64
}

func reorderableJoin(n plan.Node) (*plan.Join, bool) {
	j, ok := n.(*plan.Join)
	if !ok || j.Kind != plan.InnerJoin || j.Lookup {
		return nil, false
	}
	if _, windowed := j.Windowed(); windowed {
		return nil, false
	}
	return j, true
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
	g.cols = append(g.cols, n.Output().ToSet())
}

// reorderJoins applies ReorderJoins to every maximal inner-join tree of
// root, top-down, and returns the new plan, whether it changed, and the
// decisions made.
func reorderJoins(est *cost.Estimator, md *plan.Metadata, root plan.Node) (plan.Node, bool, []cost.Decision) {
	var decisions []cost.Decision
	changed := false
	var visit func(n plan.Node) plan.Node
	visit = func(n plan.Node) plan.Node {
		if _, ok := reorderableJoin(n); ok {
			g := &joinGraph{est: est}
			g.flatten(n)
			for i, r := range g.rels {
				g.rels[i] = visit(r)
			}
			if len(g.rels) < 3 {
				return rebuildSame(n, g)
			}
			out, d, better := g.order(md, n)
			decisions = append(decisions, d)
			if !better {
				return rebuildSame(n, g)
			}
			changed = true
			if !sameCols(out.Output(), n.Output()) {
				out = &plan.Project{Input: out, Items: identityItems(md, n.Output())}
			}
			return out
		}
		in := n.Inputs()
		if len(in) == 0 {
			return n
		}
		nin := make([]plan.Node, len(in))
		diff := false
		for i, c := range in {
			nin[i] = visit(c)
			diff = diff || nin[i] != c
		}
		if !diff {
			return n
		}
		return n.WithInputs(nin...)
	}
	out := visit(root)
	return out, changed, decisions
}

// rebuildSame puts the (possibly rewritten) relations back into n's shape.
func rebuildSame(n plan.Node, g *joinGraph) plan.Node {
	i := 0
	var rebuild func(n plan.Node) plan.Node
	rebuild = func(n plan.Node) plan.Node {
		if j, ok := reorderableJoin(n); ok {
			l := rebuild(j.Left)
			r := rebuild(j.Right)
			if l == j.Left && r == j.Right {
				return j
			}
			return j.WithInputs(l, r)
		}
		r := g.rels[i]
		i++
		return r
	}
	return rebuild(n)
}

// subplan is the best plan found for a set of relations.
type subplan struct {
	cost, card  float64
	left, right uint // the split (0 for a single relation)
}

// order finds the best join order and returns it with the decision.
func (g *joinGraph) order(md *plan.Metadata, written plan.Node) (plan.Node, cost.Decision, bool) {
	n := len(g.rels)
	g.size = make([]float64, n)
	for i, r := range g.rels {
		g.size[i] = g.est.Size(r)
	}
	full := uint(1)<<n - 1
	var best map[uint]subplan
	if n <= maxExhaustive {
		best = g.exhaustive(full)
	} else {
		best = g.greedy()
	}
	chosen := g.build(md, best, full)
	writtenCost := g.treeCost(written)
	d := cost.Decision{What: "join order of " + g.names(md, full)}
	d.Alternatives = append(d.Alternatives, cost.Alternative{Desc: "as written: " + g.describe(md, written), Cost: writtenCost})
	d.Alternatives = append(d.Alternatives, cost.Alternative{Desc: "chosen: " + g.shape(md, best, full), Cost: best[full].cost})
	// A few more: the best plan that starts by joining each pair the
	// chosen one does not.
	for _, alt := range g.pairAlternatives(md, best, full) {
		d.Alternatives = append(d.Alternatives, alt)
	}
	better := best[full].cost < writtenCost*(1-1e-9)
	d.Chosen = 1
	d.Why = "smallest sum of intermediate result sizes (rows)"
	if !better {
		d.Chosen = 0
		d.Why = "the written order is already the cheapest"
	}
	method := "exhaustive"
	if n > maxExhaustive {
		method = "greedy"
	}
	d.Why += fmt.Sprintf("; %s search over %d relations", method, n)
	return chosen, d, better
}

// card is the estimated size of the join of the relations in set.
func (g *joinGraph) card(set uint) float64 {
	c := 1.0
	var cols plan.ColSet
	for i := range g.rels {
		if set&(1<<i) != 0 {
			c *= g.size[i]
			cols = cols.Union(g.cols[i])
		}
	}
	for _, p := range g.conds {
		used := plan.ColsUsed(p)
		if !used.Empty() && used.SubsetOf(cols) && !g.withinOne(used, set) {
			c *= g.est.JoinSelectivity(p)
		}
	}
	return max(c, 1)
}

// withinOne reports whether cols belong to a single relation of set (such
// a conjunct filters that relation and was pushed below the join already).
func (g *joinGraph) withinOne(cols plan.ColSet, set uint) bool {
	for i := range g.rels {
		if set&(1<<i) != 0 && cols.SubsetOf(g.cols[i]) {
			return true
		}
	}
	return false
}

// connected reports whether a condition links a and b.
func (g *joinGraph) connected(a, b uint) bool {
	ca, cb := g.colsOf(a), g.colsOf(b)
	for _, p := range g.conds {
		used := plan.ColsUsed(p)
		if used.Intersects(ca) && used.Intersects(cb) && used.SubsetOf(ca.Union(cb)) {
			return true
		}
	}
	return false
}

func (g *joinGraph) colsOf(set uint) plan.ColSet {
	var cols plan.ColSet
	for i := range g.rels {
		if set&(1<<i) != 0 {
			cols = cols.Union(g.cols[i])
		}
	}
	return cols
}

// exhaustive is Selinger-style dynamic programming over every subset, in
// order of size; a split without a linking condition (a cross product) is
// considered only when a set has no linked split.
func (g *joinGraph) exhaustive(full uint) map[uint]subplan {
	best := map[uint]subplan{}
	n := bits.Len(full)
	for i := 0; i < n; i++ {
		best[1<<i] = subplan{card: g.size[i]}
	}
	var sets []uint
	for s := uint(1); s <= full; s++ {
		if bits.OnesCount(s) > 1 {
			sets = append(sets, s)
		}
	}
	sort.SliceStable(sets, func(a, b int) bool { return bits.OnesCount(sets[a]) < bits.OnesCount(sets[b]) })
	for _, s := range sets {
		card := g.card(s)
		for _, linked := range []bool{true, false} {
			found := false
			for l := (s - 1) & s; l > 0; l = (l - 1) & s {
				r := s &^ l
				if l > r { // each split once, the smaller set on the left
					continue
				}
				lp, lok := best[l]
				rp, rok := best[r]
				if !lok || !rok || (linked && !g.connected(l, r)) {
					continue
				}
				c := lp.cost + rp.cost + card
				if cur, ok := best[s]; !ok || c < cur.cost {
					best[s] = subplan{cost: c, card: card, left: l, right: r}
				}
				found = true
			}
			if found {
				break
			}
		}
	}
	return best
}

// greedy builds a left-deep order: the linked pair with the smallest
// result first, then at each step the relation whose join is smallest.
func (g *joinGraph) greedy() map[uint]subplan {
	n := len(g.rels)
	best := map[uint]subplan{}
	for i := 0; i < n; i++ {
		best[1<<i] = subplan{card: g.size[i]}
	}
	var cur uint
	for step := 0; step < n; step++ {
		var pick uint
		bestCard := -1.0
		for i := 0; i < n; i++ {
			bit := uint(1) << i
			if cur&bit != 0 {
				continue
			}
			if cur != 0 && !g.connected(cur, bit) {
				continue
			}
			c := g.card(cur | bit)
			if bestCard < 0 || c < bestCard {
				pick, bestCard = bit, c
			}
		}
		if pick == 0 { // nothing linked: a cross product with the smallest
			for i := 0; i < n; i++ {
				bit := uint(1) << i
				if cur&bit == 0 && (pick == 0 || g.size[i] < g.size[bits.TrailingZeros(pick)]) {
					pick = bit
				}
			}
		}
		if cur == 0 {
			cur = pick
			continue
		}
		s := cur | pick
		best[s] = subplan{cost: best[cur].cost + g.card(s), card: g.card(s), left: cur, right: pick}
		cur = s
	}
	return best
}

// build makes the join tree of the best plan for set.
func (g *joinGraph) build(md *plan.Metadata, best map[uint]subplan, set uint) plan.Node {
	p := best[set]
	if p.left == 0 {
		return g.rels[bits.TrailingZeros(set)]
	}
	l, r := g.build(md, best, p.left), g.build(md, best, p.right)
	lc, rc := g.colsOf(p.left), g.colsOf(p.right)
	var on []plan.Expr
	for _, c := range g.conds {
		used := plan.ColsUsed(c)
		if !used.Empty() && used.SubsetOf(lc.Union(rc)) && !used.SubsetOf(lc) && !used.SubsetOf(rc) {
			on = append(on, c)
		}
	}
	if set == uint(1)<<len(g.rels)-1 {
		// The root also takes the conjuncts without columns, and any that
		// a child alone has (pushed there before; kept rather than lost).
		for _, c := range g.conds {
			used := plan.ColsUsed(c)
			if used.Empty() || g.withinOne(used, set) {
				on = append(on, c)
			}
		}
	}
	j := &plan.Join{Kind: plan.InnerJoin, Left: l, Right: r}
	if len(on) > 0 {
		j.On = plan.MakeAnd(on)
	}
	return j
}

// treeCost is the C_out cost of an existing join tree over g's relations.
func (g *joinGraph) treeCost(n plan.Node) float64 {
	var walk func(n plan.Node) (uint, float64)
	walk = func(n plan.Node) (uint, float64) {
		if j, ok := reorderableJoin(n); ok {
			ls, lc := walk(j.Left)
			rs, rc := walk(j.Right)
			s := ls | rs
			return s, lc + rc + g.card(s)
		}
		for i, r := range g.rels {
			if r == n || sameCols(r.Output(), n.Output()) {
				return 1 << i, 0
			}
		}
		return 0, 0
	}
	_, c := walk(n)
	return c
}

// pairAlternatives returns, for up to three linked pairs the chosen plan
// does not join first, the cost of the best plan that does.
func (g *joinGraph) pairAlternatives(md *plan.Metadata, best map[uint]subplan, full uint) []cost.Alternative {
	var firsts []uint
	var first func(s uint) uint
	first = func(s uint) uint {
		p := best[s]
		if p.left == 0 {
			return s
		}
		if bits.OnesCount(s) == 2 {
			return s
		}
		if bits.OnesCount(p.left) >= 2 {
			return first(p.left)
		}
		return first(p.right)
	}
	chosenFirst := first(full)
	n := len(g.rels)
	for i := 0; i < n && len(firsts) < 3; i++ {
		for k := i + 1; k < n && len(firsts) < 3; k++ {
			pair := uint(1)<<i | uint(1)<<k
			if pair != chosenFirst && g.connected(1<<i, 1<<k) {
				firsts = append(firsts, pair)
			}
		}
	}
	var out []cost.Alternative
	for _, pair := range firsts {
		total := g.card(pair)
		cur := pair
		for bits.OnesCount(cur) < n {
			var pick uint
			bestCard := -1.0
			for i := 0; i < n; i++ {
				bit := uint(1) << i
				if cur&bit == 0 {
					if c := g.card(cur | bit); bestCard < 0 || c < bestCard {
						pick, bestCard = bit, c
					}
				}
			}
			cur |= pick
			total += bestCard
		}
		out = append(out, cost.Alternative{Desc: "starting with " + g.names(md, pair), Cost: total})
	}
	return out
}

func (g *joinGraph) relName(md *plan.Metadata, i int) string {
	switch r := g.rels[i].(type) {
	case *plan.Scan:
		if r.Alias != "" {
			return r.Alias
		}
		return r.Object.Name
	}
	if out := g.rels[i].Output(); len(out) > 0 {
		if t := md.Column(out[0]).Table; t != "" {
			return t
		}
	}
	return fmt.Sprintf("r%d", i+1)
}

func (g *joinGraph) names(md *plan.Metadata, set uint) string {
	var ns []string
	for i := range g.rels {
		if set&(1<<i) != 0 {
			ns = append(ns, g.relName(md, i))
		}
	}
	return "{" + strings.Join(ns, ", ") + "}"
}

func (g *joinGraph) shape(md *plan.Metadata, best map[uint]subplan, set uint) string {
	p := best[set]
	if p.left == 0 {
		return g.relName(md, bits.TrailingZeros(set))
	}
	return "(" + g.shape(md, best, p.left) + " ⋈ " + g.shape(md, best, p.right) + ")"
}

func (g *joinGraph) describe(md *plan.Metadata, n plan.Node) string {
	if j, ok := reorderableJoin(n); ok {
		return "(" + g.describe(md, j.Left) + " ⋈ " + g.describe(md, j.Right) + ")"
	}
	for i, r := range g.rels {
		if r == n || sameCols(r.Output(), n.Output()) {
			return g.relName(md, i)
		}
	}
	return "?"
}

func sameCols(a, b plan.ColList) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func identityItems(md *plan.Metadata, cols plan.ColList) []plan.ProjItem {
	items := make([]plan.ProjItem, len(cols))
	for i, id := range cols {
		items[i] = plan.ProjItem{ID: id, Expr: md.Ref(id)}
	}
	return items
}
