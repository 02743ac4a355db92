package proptest

import (
	"fmt"
	"strings"
)

// GenSubqueries makes GenQuery write subqueries beyond the IN and EXISTS
// conjuncts of WHERE (which it always writes): scalar subqueries in the
// select list, WHERE and HAVING, and subquery predicates under OR and NOT,
// quantified comparisons (= ANY, > ALL, ...) and subquery predicates as
// boolean columns. It is off until eddy supports them (the cases would all
// be skipped); -prop.subqueries turns it on. Off, the generator draws no
// random number for them, so every seed gives the query it gave before.
var GenSubqueries = false

// subqueryInput returns the FROM item of a subquery: a source, or above
// depth 0 sometimes a helper view over a generated query.
func (g *gen) subqueryInput(depth int) *rel {
	if depth > 0 && g.r.IntN(4) == 0 {
		return g.selRel(g.sel(depth-1), true)
	}
	srcs := g.schema.Sources
	return g.sourceRel(srcs[g.r.IntN(len(srcs))])
}

// correlation returns the WHERE clause (with a leading space, or "") of a
// subquery over inner: an equality with an outer column, sometimes with
// an inequality too or alone, and sometimes a filter of its own.
func (g *gen) correlation(inner, outer []scopeCol) string {
	var conj []string
	if g.r.IntN(3) == 0 {
		conj = append(conj, g.expr(inner).pred(1))
	}
	n := g.r.IntN(6)
	if len(outer) == 0 {
		n = 5 // nothing to correlate with
	}
	switch n {
	case 0, 1, 2:
		g.feats.add("subquery.correlated")
		eq, _ := g.equality(inner, outer)
		conj = append(conj, eq)
		if g.r.IntN(3) == 0 {
			conj = append(conj, g.correlatedCmp(inner, outer))
		}
	case 3:
		g.feats.add("subquery.correlated")
		g.feats.add("subquery.non_equality")
		conj = append(conj, g.correlatedCmp(inner, outer))
	}
	if len(conj) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conj, " AND ")
}

// scalarSubquery returns a subquery of one row and one column over outer's
// columns and its type: an aggregate (COUNT, SUM, MIN, MAX, AVG, which
// give one row over no rows too), or the column of the one row a source
// holds for a key (no row: NULL).
func (g *gen) scalarSubquery(outer []scopeCol, depth int) (string, Column) {
	g.feats.add("subquery.scalar")
	if g.r.IntN(4) == 0 {
		// A lookup by the key of a source: at most one row.
		src := g.schema.Sources[g.r.IntN(len(g.schema.Sources))]
		in := g.sourceRel(src)
		c := in.cols[g.r.IntN(len(in.cols))]
		key := g.expr(outer).value(Int, g.r.IntN(2))
		g.feats.add("subquery.scalar_lookup")
		return fmt.Sprintf("(SELECT %s.%s FROM %s WHERE %s.%s = %s)", in.alias, c.Name, in.item, in.alias, src.Key, key),
			Column{Type: c.Type, Inexact: c.Inexact}
	}
	in := g.subqueryInput(depth)
	call, col := g.aggCall(in.scope())
	return "(SELECT " + call + " FROM " + in.item + g.correlation(in.scope(), outer) + ")", col
}

// subqueryBool returns a predicate on a subquery: IN, NOT IN, EXISTS or
// NOT EXISTS (subqueryPred), or a quantified comparison x op ANY|ALL (..).
func (g *gen) subqueryBool(outer []scopeCol, depth int) string {
	if g.r.IntN(3) > 0 {
		return g.subqueryPred(outer, depth)
	}
	g.feats.add("subquery.quantified")
	in := g.subqueryInput(depth)
	x, item, ok := g.inItem(outer, in.scope())
	if !ok {
		return g.subqueryPred(outer, depth)
	}
	op := comparisons[g.r.IntN(len(comparisons)-1)] // not <=>
	q := []string{"ANY", "ALL", "SOME"}[g.r.IntN(3)]
	return "(" + x + " " + op + " " + q + " (SELECT " + item + " FROM " + in.item + g.correlation(in.scope(), outer) + "))"
}

// subqueryConjunct returns a WHERE or HAVING conjunct that is not a plain
// semi or anti join: a subquery predicate under OR or NOT, a quantified
// comparison, or a comparison with a scalar subquery.
func (g *gen) subqueryConjunct(cols []scopeCol, depth int) string {
	switch g.r.IntN(4) {
	case 0:
		g.feats.add("subquery.under_or")
		return "(" + g.subqueryBool(cols, depth) + " OR " + g.expr(cols).pred(1) + ")"
	case 1:
		g.feats.add("subquery.under_not")
		return "(NOT (" + g.subqueryBool(cols, depth) + " AND " + g.expr(cols).pred(0) + "))"
	case 2:
		return g.subqueryBool(cols, depth)
	}
	g.feats.add("subquery.scalar_compare")
	sub, c := g.scalarSubquery(cols, depth)
	t := c.Type
	if t == Bool {
		return "(" + sub + " IS NOT FALSE)"
	}
	if t.numeric() {
		x, _ := g.expr(cols).numeric(1)
		return "(" + x + " " + comparisons[g.r.IntN(len(comparisons))] + " " + sub + ")"
	}
	return "(" + g.expr(cols).operand(t, 1) + " " + comparisons[g.r.IntN(len(comparisons))] + " " + sub + ")"
}

// subqueryItem adds a select-list item with a subquery to it: a scalar
// subquery, alone or in an expression, or a subquery predicate as a
// boolean column.
func (g *gen) subqueryItem(cols []scopeCol, depth int, it *items) {
	g.feats.add("subquery.select_list")
	switch g.r.IntN(3) {
	case 0:
		g.feats.add("subquery.bool_column")
		it.add(g.subqueryBool(cols, depth), Bool, false)
	case 1:
		sub, c := g.scalarSubquery(cols, depth)
		if c.Type.numeric() {
			g.feats.add("expr.func")
			it.add("COALESCE("+sub+", "+g.expr(cols).literal(c.Type)+")", c.Type, c.Inexact)
			return
		}
		it.add(sub, c.Type, c.Inexact)
	default:
		sub, c := g.scalarSubquery(cols, depth)
		it.add(sub, c.Type, c.Inexact)
	}
}
