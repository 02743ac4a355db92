package proptest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// viewMark starts the placeholder name of a helper view (@h0, @h1, ...);
// a run replaces it with a prefix of its own for each plan, so that each
// plan reads views planned the same way it is.
const viewMark = "@h"

// View is a helper view: a materialized view that the tested query (or a
// later helper view) reads.
type View struct {
	Name string // the placeholder name, e.g. @h0
	SQL  string // its SELECT
	Emit string // " EMIT ON WINDOW CLOSE" or ""
}

// Query is a generated query: the helper views it reads, in creation
// order, and its own SELECT.
type Query struct {
	Views    []View
	SQL      string
	Emit     string
	Features Features
}

// Features is the set of features a generated query uses, by name
// ("join.lookup", "agg.count_distinct", ...).
type Features map[string]bool

func (f Features) add(name string) {
	if f != nil {
		f[name] = true
	}
}

// Names returns the feature names, sorted.
func (f Features) Names() []string {
	out := make([]string, 0, len(f))
	for n := range f {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// gen holds the state of generating one query.
type gen struct {
	r      *rand.Rand
	schema *Schema
	views  []View
	n      int // the last alias number handed out
	feats  Features
}

// GenQuery returns a random query over the schema's sources. The same
// random source always gives the same query.
func GenQuery(r *rand.Rand, s *Schema) *Query {
	g := &gen{r: r, schema: s, feats: Features{}}
	top := g.sel(1 + r.IntN(2))
	return &Query{Views: g.views, SQL: top.sql, Emit: top.emit, Features: g.feats}
}

// alias returns a new table alias: every alias of a query is unique, so
// correlated subqueries never capture the wrong name.
func (g *gen) alias(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// expr returns an expression generator over cols.
func (g *gen) expr(cols []scopeCol) *exprGen {
	return &exprGen{r: g.r, cols: cols, feats: g.feats}
}

// exactExpr returns an expression generator for aggregate arguments.
func (g *gen) exactExpr(cols []scopeCol) *exprGen {
	e := g.expr(cols)
	e.exact = true
	return e
}

// sel returns a random SELECT of one of the generated shapes.
func (g *gen) sel(depth int) *sel {
	switch n := g.r.IntN(100); {
	case n < 14:
		return g.projectSel(depth, single(g.rel(depth)))
	case n < 29:
		return g.projectSel(depth, g.joinFrom(depth))
	case n < 46:
		return g.aggSel(depth)
	case n < 56:
		return g.windowSel(depth)
	case n < 63:
		return g.topNSel(depth)
	case n < 70:
		return g.unionSel(depth)
	case n < 78:
		return g.setOpSel(depth)
	case n < 87:
		return g.winFuncSel(depth)
	case n < 94:
		return g.distinctSel(depth)
	default:
		return g.limitSel(depth)
	}
}

// fromAny returns the FROM of a query: one item, or a join.
func (g *gen) fromAny(depth int) *from {
	if g.r.IntN(3) == 0 {
		return g.joinFrom(depth)
	}
	return single(g.rel(depth))
}

// items builds a select list; each item is named c1, c2, ... in order.
type items struct {
	list []string
	cols []Column
}

// add appends `expr AS cN` and returns cN.
func (it *items) add(expr string, t Type, inexact bool) string {
	name := fmt.Sprintf("c%d", len(it.cols)+1)
	it.list = append(it.list, expr+" AS "+name)
	it.cols = append(it.cols, Column{Name: name, Type: t, Inexact: inexact && t == Double})
	return name
}

func (it *items) String() string { return strings.Join(it.list, ", ") }

// typeOf returns the type of a qualified reference of f.
func typeOf(cols []scopeCol, ref string) scopeCol {
	for _, c := range cols {
		if c.ref == ref {
			return c
		}
	}
	return scopeCol{ref: ref, typ: Int}
}

// passThrough adds f's unique and event-time columns to the select list
// (each half the time), so that queries over the result can use them,
// and records them in s.
func (g *gen) passThrough(f *from, it *items, s *sel) {
	if f.unique != nil && g.r.IntN(2) == 0 {
		s.unique = []string{}
		for _, u := range f.unique {
			c := typeOf(f.cols, u)
			s.unique = append(s.unique, it.add(u, c.typ, c.inexact))
		}
	}
	if f.time != "" && f.append && g.r.IntN(2) == 0 {
		s.time = it.add(f.time, Time, false)
	}
}

// randType returns a type for a computed column.
func (g *gen) randType() Type {
	return []Type{Int, Int, Double, Decimal, String, String, Bool, Time}[g.r.IntN(8)]
}

// where returns the WHERE clause of a query over f (with a leading space),
// or "": the join condition of a comma join, and sometimes a test of the
// columns an outer join pads, a restriction of a join key, a repeat of a
// predicate the input already applies, an IN or EXISTS subquery and a
// random predicate (less often when one of the others is there, so that
// most queries keep some rows).
func (g *gen) where(depth int, f *from) string {
	conj := append([]string(nil), f.where...)
	var extra []string
	if f.last != nil && g.r.IntN(4) == 0 {
		// Whether the test rejects NULLs decides if the optimizer may make
		// the outer join an inner one.
		g.feats.add("filter.padded_side")
		e := g.expr(f.last)
		switch g.r.IntN(4) {
		case 0:
			extra = append(extra, e.nullSafe())
		case 1:
			extra = append(extra, e.pred(0))
		default:
			extra = append(extra, e.pred(1))
		}
	}
	if len(f.keys) > 0 && g.r.IntN(5) == 0 {
		extra = append(extra, g.restrict(f.keys[g.r.IntN(len(f.keys))]))
	}
	if len(f.repeat) > 0 && g.r.IntN(2) == 0 {
		g.feats.add("filter.repeated")
		extra = append(extra, f.repeat[g.r.IntN(len(f.repeat))])
	}
	if g.r.IntN(5) == 0 {
		extra = append(extra, g.subqueryPred(f.cols, depth))
	}
	if GenSubqueries && g.r.IntN(4) == 0 {
		extra = append(extra, g.subqueryConjunct(f.cols, depth))
	}
	if len(extra) == 0 && g.r.IntN(3) > 0 || len(extra) > 0 && g.r.IntN(3) == 0 {
		g.feats.add("filter")
		conj = append(conj, g.expr(f.cols).pred(2))
	}
	conj = append(conj, extra...)
	if len(conj) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conj, " AND ")
}

// projectSel returns a filter and projection over f.
func (g *gen) projectSel(depth int, f *from) *sel {
	g.feats.add("project")
	s := &sel{append: f.append}
	it := &items{}
	g.passThrough(f, it, s)
	e := g.expr(f.cols)
	for range 1 + g.r.IntN(4) {
		t := g.randType()
		it.add(e.value(t, 2), t, true)
	}
	if GenSubqueries && g.r.IntN(3) == 0 {
		g.subqueryItem(f.cols, depth, it)
	}
	s.sql = "SELECT " + it.String() + " FROM " + f.text + g.where(depth, f)
	s.cols = it.cols
	return s
}

// distinctSel returns a SELECT DISTINCT over f, mostly of columns, so that
// duplicates occur.
func (g *gen) distinctSel(depth int) *sel {
	g.feats.add("distinct")
	f := g.fromAny(depth)
	it := &items{}
	e := g.expr(f.cols)
	if f.unique != nil && g.r.IntN(3) == 0 {
		// Rows that are distinct already: the DISTINCT is redundant.
		g.feats.add("distinct.over_key")
		for _, u := range f.unique {
			c := typeOf(f.cols, u)
			it.add(u, c.typ, c.inexact)
		}
	}
	for range 1 + g.r.IntN(3) {
		if g.r.IntN(3) > 0 {
			c := f.cols[g.r.IntN(len(f.cols))]
			it.add(c.ref, c.typ, c.inexact)
			continue
		}
		t := g.randType()
		it.add(e.value(t, 1), t, true)
	}
	s := &sel{cols: it.cols}
	s.sql = "SELECT DISTINCT " + it.String() + " FROM " + f.text + g.where(depth, f)
	for _, c := range it.cols {
		s.unique = append(s.unique, c.Name)
	}
	return s
}

// limitSel returns a global Top-N: ORDER BY every selected column, LIMIT n.
func (g *gen) limitSel(depth int) *sel {
	g.feats.add("topn.limit")
	f := single(g.rel(depth))
	it := &items{}
	e := g.expr(f.cols)
	var order []string
	for range 1 + g.r.IntN(3) {
		t := g.randType()
		name := it.add(e.value(t, 1), t, true)
		if g.r.IntN(2) == 0 {
			name += " DESC"
		}
		order = append(order, name)
	}
	s := &sel{cols: it.cols}
	s.sql = fmt.Sprintf("SELECT %s FROM %s%s ORDER BY %s LIMIT %d", it.String(), f.text, g.where(depth, f),
		strings.Join(order, ", "), 1+g.r.IntN(5))
	return s
}

// unionSel returns a UNION ALL (sometimes a UNION) of two or three
// projections with the same column types.
func (g *gen) unionSel(depth int) *sel {
	var ts []Type
	for range 1 + g.r.IntN(3) {
		ts = append(ts, g.randType())
	}
	op := " UNION ALL "
	g.feats.add("union_all")
	if g.r.IntN(6) == 0 {
		op = " UNION "
		g.feats.add("union")
	}
	s := &sel{append: op == " UNION ALL "}
	var branches []string
	for range 2 + g.r.IntN(2) {
		f := g.fromAny(depth)
		s.append = s.append && f.append
		e := g.exactExpr(f.cols)
		it := &items{}
		for _, t := range ts {
			it.add(e.value(t, 1), t, false)
		}
		s.cols = it.cols
		branches = append(branches, "SELECT "+it.String()+" FROM "+f.text+g.where(depth, f))
	}
	s.sql = strings.Join(branches, op)
	return s
}
