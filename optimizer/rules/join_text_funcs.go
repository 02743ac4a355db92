package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// This file describes ReorderJoins' choices for EXPLAIN VERBOSE: the
// relations' names, the shapes of join trees, and the alternatives to the
// chosen order.

// maxPairAlternatives is how many "starting with" alternatives a join
// order decision lists: enough to show the chosen order beat the obvious
// other starts, few enough to read.
const maxPairAlternatives = 3

// pairAlternatives returns, for up to maxPairAlternatives pairs of
// relations a condition links and the chosen tree does not join directly,
// the cost of the greedy order that joins that pair first.
func (g *joinGraph) pairAlternatives(md *plan.Metadata, chosen *joinTree) []cost.Alternative {
	type pair struct{ a, b int }
	joined := map[pair]bool{}
	var walk func(t *joinTree)
	walk = func(t *joinTree) {
		if t.rel >= 0 {
			return
		}
		if t.left.rel >= 0 && t.right.rel >= 0 {
			joined[pair{min(t.left.rel, t.right.rel), max(t.left.rel, t.right.rel)}] = true
		}
		walk(t.left)
		walk(t.right)
	}
	walk(chosen)
	var pairs []pair
	for _, rs := range g.condRels {
		if len(rs) == 2 && !joined[pair{rs[0], rs[1]}] {
			pairs = append(pairs, pair{rs[0], rs[1]})
		}
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		if x.a != y.a {
			return x.a - y.a
		}
		return x.b - y.b
	})
	pairs = slices.Compact(pairs)
	var out []cost.Alternative
	for _, p := range pairs[:min(len(pairs), maxPairAlternatives)] {
		t := g.greedy([]int{p.a, p.b})
		out = append(out, cost.Alternative{Desc: "starting with " + g.names(md, []int{p.a, p.b}), Cost: t.cost})
	}
	return out
}

// relName names relation i: its alias or table, the table of its first
// column, or its position.
func (g *joinGraph) relName(md *plan.Metadata, i int) string {
	if r, ok := g.rels[i].(*plan.Scan); ok {
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

// names lists the relations rels as {a, b, c}.
func (g *joinGraph) names(md *plan.Metadata, rels []int) string {
	ns := make([]string, len(rels))
	for k, i := range rels {
		ns[k] = g.relName(md, i)
	}
	return "{" + strings.Join(ns, ", ") + "}"
}

// shape renders a join tree as ((a ⋈ b) ⋈ c).
func (g *joinGraph) shape(md *plan.Metadata, t *joinTree) string {
	var b strings.Builder
	var walk func(t *joinTree)
	walk = func(t *joinTree) {
		if t.rel >= 0 {
			b.WriteString(g.relName(md, t.rel))
			return
		}
		b.WriteString("(")
		walk(t.left)
		b.WriteString(" ⋈ ")
		walk(t.right)
		b.WriteString(")")
	}
	walk(t)
	return b.String()
}
