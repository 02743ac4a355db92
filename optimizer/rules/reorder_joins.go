package rules

import (
	"fmt"
	"slices"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// ReorderJoins is the cost-based join ordering. It matches the root of a
// maximal tree of regular inner joins (not lookup, interval or window
// joins, which keep their shape, nor outer, semi or anti joins, which do
// not commute) of at least three relations, and rebuilds the tree in the
// order that minimizes the sum of the estimated sizes of its intermediate
// results (C_out), each condition conjunct at the lowest join that has its
// columns:
//
//	Join a.category = c.id (Join a.seller = p.id (auction a, person p), category c)
//	  ⇒  Join a.seller = p.id (person p, Join a.category = c.id (auction a, category c))
//
// when the second order's intermediate result (auction ⋈ category, after
// category's filter) is smaller than the first's (auction ⋈ person).
//
// The search is exhaustive up to MaxExhaustiveJoin relations and greedy
// beyond (see joinSearch): dynamic programming over every subset of the
// relations finds the cheapest bushy tree, avoiding cross products where
// a condition links the relations; above the limit, greedy operator
// ordering joins, at each step, the two linked subtrees whose join is
// smallest. Each tree's search, its alternatives and their costs go to
// Context.Decisions, printed by EXPLAIN VERBOSE.
//
// Matching only the root: the driver walks bottom-up and tells the rule
// each node's parent; a join whose parent is a reorderable join is inside
// a larger tree, which is ordered as a whole when the driver reaches its
// root (the relations below it were already visited, so nested trees —
// a join inside a derived table's aggregate — are ordered first). The
// rule runs in a phase of its own, once, so each tree is searched once.
//
// Safety: inner joins are associative and commutative, and a conjunct of
// an inner join's condition filters the same pairs wherever it is
// evaluated once its columns are present, with or without retractions.
// Columns are referred to by ID, so a changed column order changes no
// answer; a Project restores the order when the tree's order changed.
// It would be wrong across an outer join (padded NULLs would meet
// conditions moved above them) or for a lookup join, whose table side
// must stay the table the stream looks up.
// Profitability: smaller intermediate results mean less state in the
// joins and less data shuffled between them; the rule fires only when the
// chosen order is cheaper than the written one.
type ReorderJoins struct{}

// Name implements Rule.
func (ReorderJoins) Name() string { return "ReorderJoins" }

// Apply implements Rule.
func (ReorderJoins) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	if _, ok := reorderableJoin(n); !ok {
		return n, false, nil
	}
	if _, inside := reorderableJoin(c.Parent); inside {
		return n, false, nil
	}
	g := newJoinGraph(c.Cost, n)
	if len(g.rels) < 3 {
		return n, false, nil
	}
	search := chooseJoinSearch(len(g.rels))
	chosen := search.run(g)
	written := g.writtenTree(n)
	better := chosen.cost < written.cost*(1-1e-9)
	d := cost.Decision{
		What:   "join order of " + g.names(c.Md, g.all()),
		Search: search.describe(len(g.rels)),
		Alternatives: []cost.Alternative{
			{Desc: "as written: " + g.shape(c.Md, written), Cost: written.cost},
			{Desc: "chosen: " + g.shape(c.Md, chosen), Cost: chosen.cost},
		},
		Chosen: 1,
		Why:    "smallest sum of intermediate result sizes (rows)",
	}
	d.Alternatives = append(d.Alternatives, g.pairAlternatives(c.Md, chosen)...)
	if !better {
		d.Chosen = 0
		d.Why = "the written order is already the cheapest"
	}
	c.Decisions = append(c.Decisions, d)
	if !better {
		return n, false, nil
	}
	out := g.build(chosen)
	if !slices.Equal(out.Output(), n.Output()) {
		out = &plan.Project{Input: out, Items: c.Md.IdentityItems(n.Output())}
	}
	return out, true, nil
}

// reorderableJoin matches a regular inner join (nil is none).
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

// MaxExhaustiveJoin is the largest number of relations ReorderJoins orders
// exhaustively. Dynamic programming over subsets tries every split of
// every subset, 3^n/2 of them: 29.5K at 10 relations, planned in about a
// millisecond, but 2.6M at 14 and 64M at 17 — seconds per query. Ten
// keeps the exhaustive search well under the planning budget of a
// statement (PostgreSQL's geqo_threshold, 12, sits in the same place for
// the same reason) while covering the joins people write by hand.
const MaxExhaustiveJoin = 10

// joinSearch is a search strategy for the join order of one tree.
type joinSearch int

const (
	exhaustiveSearch joinSearch = iota
	greedySearch
)

// chooseJoinSearch picks the search for a tree of n relations.
func chooseJoinSearch(n int) joinSearch {
	if n <= MaxExhaustiveJoin {
		return exhaustiveSearch
	}
	return greedySearch
}

// run finds the order of g's relations.
func (s joinSearch) run(g *joinGraph) *joinTree {
	if s == exhaustiveSearch {
		return g.exhaustive()
	}
	return g.greedy(nil)
}

// describe says which search ran, for EXPLAIN VERBOSE.
func (s joinSearch) describe(n int) string {
	if s == exhaustiveSearch {
		return fmt.Sprintf("exhaustive dynamic programming over %d relations", n)
	}
	return fmt.Sprintf("greedy operator ordering over %d relations (above the exhaustive limit of %d)", n, MaxExhaustiveJoin)
}
