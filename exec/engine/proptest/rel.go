package proptest

import (
	"fmt"
	"regexp"
	"strings"
)

// rel is one FROM item — a source, a helper view, a derived table or a
// window function over a named object — with what the generator knows of
// its rows.
type rel struct {
	item   string // the FROM item's text, alias included
	alias  string
	cols   []Column
	append bool // its rows are only ever appended (a stream, or a filter over one)
	table  bool // a base table: a stream joined to it is a lookup join
	// time is an event-time column of an append-only rel, usable for an
	// interval join; "" when there is none.
	time string
	// unique are columns that together identify a row; nil when unknown.
	unique []string
	// repeat is a predicate every row satisfies, over the rel's alias
	// (see from.repeat), "" if none.
	repeat string
	// object is the named object a window function can read (a source or
	// a helper view), "" for a derived table; tvfTime is its TIMESTAMP
	// column.
	object, tvfTime string
}

// scope returns the rel's columns qualified by its alias.
func (r *rel) scope() []scopeCol {
	out := make([]scopeCol, len(r.cols))
	for i, c := range r.cols {
		out[i] = scopeCol{ref: r.alias + "." + c.Name, typ: c.Type, inexact: c.Inexact}
	}
	return out
}

// qualify returns r's alias-qualified references to names.
func (r *rel) qualify(names []string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = r.alias + "." + n
	}
	return out
}

// col returns the type of r's column name, and whether it exists.
func (r *rel) col(name string) (Type, bool) {
	for _, c := range r.cols {
		if c.Name == name {
			return c.Type, true
		}
	}
	return 0, false
}

// from is what follows FROM in a query: one rel or a join of several,
// with the columns it provides and what is known of its rows.
type from struct {
	text   string
	cols   []scopeCol
	append bool
	unique []string // qualified references that identify a row; nil if unknown
	time   string   // a qualified event-time reference, "" if none
	// where are conjuncts the query must add to its WHERE clause: the join
	// condition of a comma join.
	where []string
	// last are the columns of the last item joined, which an outer join
	// may pad with NULLs; nil for a single item.
	last []scopeCol
	// keys are the columns the join conditions equate.
	keys []scopeCol
	// repeat are predicates every row of an item already satisfies (the
	// filter of a derived table, restated over its alias): a query that
	// repeats one gives the optimizer a redundant conjunct to remove.
	repeat []string
}

// single returns the FROM of one rel.
func single(r *rel) *from {
	f := &from{text: r.item, cols: r.scope(), append: r.append, unique: r.qualify(r.unique)}
	if r.repeat != "" {
		f.repeat = []string{r.repeat}
	}
	if r.time != "" {
		f.time = r.alias + "." + r.time
	}
	return f
}

// sel is a generated SELECT: its text and what is known of its result.
type sel struct {
	sql    string
	cols   []Column
	append bool
	time   string   // a result column carrying event time, "" if none
	unique []string // result columns identifying a row, nil if unknown
	// emit is appended to the CREATE MATERIALIZED VIEW statement of a
	// windowed aggregation (EMIT ON WINDOW CLOSE), "" otherwise.
	emit string
	// filter is the WHERE predicate of a pass-through filter (filterSel)
	// and qual the alias its columns are qualified with there: every
	// result row satisfies the predicate restated over another alias.
	filter, qual string
}

// sourceRel returns a base source as a FROM item.
func (g *gen) sourceRel(src *Source) *rel {
	a := g.alias("a")
	r := &rel{item: src.Name + " AS " + a, alias: a, cols: src.Columns, append: !src.Table, table: src.Table,
		unique: []string{src.Key}, object: src.Name, tvfTime: src.TimeCol()}
	if !src.Table {
		r.time = src.TimeCol()
	}
	return r
}

// selRel returns a generated query as a FROM item: a helper view (a view
// over which later views are built) or a derived table.
func (g *gen) selRel(s *sel, asView bool) *rel {
	r := &rel{cols: s.cols, append: s.append, time: s.time, unique: s.unique}
	defer func() {
		if s.filter != "" {
			r.repeat = requalify(s.filter, s.qual, r.alias)
		}
	}()
	if asView {
		name := g.addView(s)
		r.alias = g.alias("v")
		r.item = name + " AS " + r.alias
		r.object = name
		for _, c := range s.cols {
			if c.Type == Time {
				r.tvfTime = c.Name
				break
			}
		}
		return r
	}
	g.feats.add("derived")
	r.alias = g.alias("d")
	r.item = "(" + s.sql + ") AS " + r.alias
	return r
}

// addView registers s as a helper view and returns its placeholder name,
// which a run replaces by a name of its own for each plan.
func (g *gen) addView(s *sel) string {
	name := fmt.Sprintf("%s%d", viewMark, len(g.views))
	g.feats.add("view")
	if strings.Contains(s.sql, viewMark) {
		g.feats.add("view_over_view")
	}
	g.views = append(g.views, View{Name: name, SQL: s.sql, Emit: s.emit})
	return name
}

// rel returns a FROM item of any kind: mostly a base source, and above
// depth 0 sometimes a helper view or a derived table over a generated
// query.
func (g *gen) rel(depth int) *rel {
	n := g.r.IntN(10)
	switch {
	case depth > 0 && n < 2:
		return g.selRel(g.sel(depth-1), true)
	case depth > 0 && n < 4:
		return g.selRel(g.sel(depth-1), false)
	}
	srcs := g.schema.Sources
	return g.sourceRel(srcs[g.r.IntN(len(srcs))])
}

// streamRel returns an append-only FROM item with an event-time column: a
// stream, or a filter over one as a derived table or a helper view.
func (g *gen) streamRel(depth int) *rel {
	streams := g.schema.Streams()
	src := streams[g.r.IntN(len(streams))]
	if depth <= 0 || g.r.IntN(3) > 0 {
		return g.sourceRel(src)
	}
	return g.selRel(g.filterSel(g.sourceRel(src)), g.r.IntN(3) == 0)
}

// tableRel returns a base table.
func (g *gen) tableRel() *rel {
	tables := g.schema.Tables()
	return g.sourceRel(tables[g.r.IntN(len(tables))])
}

// filterSel returns `SELECT *`-like pass-through of every column of an
// append-only rel, with a filter: the result stays append-only and keeps
// the rel's event time and unique columns.
func (g *gen) filterSel(r *rel) *sel {
	var items []string
	for _, c := range r.cols {
		items = append(items, r.alias+"."+c.Name)
	}
	s := &sel{cols: r.cols, append: r.append, time: r.time, unique: r.unique}
	s.sql = "SELECT " + strings.Join(items, ", ") + " FROM " + r.item
	if g.r.IntN(4) > 0 {
		g.feats.add("filter")
		s.filter, s.qual = g.expr(r.scope()).pred(2), r.alias
		s.sql += " WHERE " + s.filter
	}
	return s
}

// requalify restates a predicate over the columns of alias from as one
// over the same columns of alias to.
func requalify(pred, from, to string) string {
	return regexp.MustCompile(`\b`+regexp.QuoteMeta(from)+`\.`).ReplaceAllString(pred, to+".")
}
