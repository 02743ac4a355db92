package proptest

import (
	"fmt"
	"strings"
)

// joinKinds are the join keywords, with their feature names.
var joinKinds = []struct{ sql, feat string }{
	{"JOIN", "join.inner"}, {"LEFT JOIN", "join.left"}, {"RIGHT JOIN", "join.right"}, {"FULL JOIN", "join.full"},
}

// joinFrom returns a join of two or three FROM items: a regular join, a
// stream-table lookup join, an interval join of two streams, a window
// join, or a comma or cross join.
func (g *gen) joinFrom(depth int) *from {
	var f *from
	switch n := g.r.IntN(20); {
	case n < 7:
		f = g.regularJoin(depth)
	case n < 12:
		f = g.lookupJoin(depth)
	case n < 17:
		f = g.intervalJoin(depth)
	case n < 18:
		f = g.windowJoin()
	default:
		f = g.commaJoin(depth)
	}
	if f.where == nil && g.r.IntN(3) == 0 {
		// A third input: another join over the first one's columns.
		g.feats.add("join.3way")
		r := g.rel(depth)
		if g.r.IntN(2) == 0 {
			r = g.tableRel()
		}
		on, keys := g.equiOn(f.cols, r.scope())
		f = g.joined(f, r, g.kind(), on, keys, false)
		if g.r.IntN(3) == 0 {
			g.feats.add("join.4way")
			r := g.rel(depth)
			on, keys := g.equiOn(f.cols, r.scope())
			f = g.joined(f, r, g.kind(), on, keys, false)
		}
	}
	return f
}

// kind returns a random join kind, inner joins being the most common.
func (g *gen) kind() int {
	switch n := g.r.IntN(8); {
	case n < 3:
		return 0
	case n < 5:
		return 1
	case n < 6:
		return 2
	default:
		return 3
	}
}

// joined returns f joined with r: its text, its columns, and what is known
// of its rows. keys are the columns the condition equates; appendOnly says
// whether the join only appends (an inner join of append-only inputs, any
// interval join, a lookup join).
func (g *gen) joined(f *from, r *rel, kind int, on string, keys []scopeCol, appendOnly bool) *from {
	g.feats.add(joinKinds[kind].feat)
	out := &from{
		text:   f.text + " " + joinKinds[kind].sql + " " + r.item + " ON " + on,
		cols:   append(append([]scopeCol(nil), f.cols...), r.scope()...),
		append: appendOnly || (kind == 0 && f.append && r.append),
		where:  f.where,
		last:   r.scope(),
		keys:   append(append([]scopeCol(nil), f.keys...), keys...),
		repeat: append([]string(nil), f.repeat...),
	}
	if r.repeat != "" {
		out.repeat = append(out.repeat, r.repeat)
	}
	if f.unique != nil && r.unique != nil {
		out.unique = append(append([]string(nil), f.unique...), r.qualify(r.unique)...)
	}
	if kind == 0 && out.append {
		out.time = f.time
	}
	return out
}

// equiOn returns a join condition and the columns it equates: an equality
// of two columns of the same type (preferring the shared key columns),
// sometimes with a second conjunct over one side or both (a restriction
// of a key to constants, which the optimizer may carry to the other
// side), or an OR.
func (g *gen) equiOn(l, r []scopeCol) (string, []scopeCol) {
	eq, keys := g.equality(l, r)
	conj := []string{eq}
	both := append(append([]scopeCol(nil), l...), r...)
	switch g.r.IntN(7) {
	case 0:
		conj = append(conj, g.expr(l).pred(1))
	case 1:
		conj = append(conj, g.expr(r).pred(1))
	case 2:
		conj = append(conj, g.expr(both).pred(1))
	case 3:
		g.feats.add("join.on_or")
		return "(" + eq + " OR " + g.expr(both).pred(1) + ")", nil
	case 4:
		if len(keys) > 0 {
			conj = append(conj, g.restrict(keys[g.r.IntN(len(keys))]))
		}
	}
	return strings.Join(conj, " AND "), keys
}

// equality returns `l = r` over a column of each side with one type,
// preferring columns of the same name (k, g, v) and the small domains of
// integers and strings, and the two columns.
func (g *gen) equality(l, r []scopeCol) (string, []scopeCol) {
	type pair struct{ a, b scopeCol }
	var named, typed []pair
	wide := g.r.IntN(8) == 0 // DOUBLE and DECIMAL values seldom match
	for _, a := range l {
		for _, b := range r {
			if a.typ != b.typ || a.typ == Time || a.typ == Bool || !wide && (a.typ == Double || a.typ == Decimal) {
				continue
			}
			p := pair{a, b}
			if colName(a.ref) == colName(b.ref) {
				named = append(named, p)
			}
			typed = append(typed, p)
		}
	}
	pairs := named
	if len(pairs) == 0 || g.r.IntN(4) == 0 {
		pairs = typed
	}
	if len(pairs) == 0 {
		return "TRUE", nil
	}
	p := pairs[g.r.IntN(len(pairs))]
	return p.a.ref + " = " + p.b.ref, []scopeCol{p.a, p.b}
}

// colName returns the column part of a qualified reference.
func colName(ref string) string { return ref[strings.LastIndexByte(ref, '.')+1:] }

// regularJoin joins two arbitrary FROM items: a join with retractions.
func (g *gen) regularJoin(depth int) *from {
	g.feats.add("join.regular")
	l, r := g.rel(depth), g.rel(depth)
	on, keys := g.equiOn(l.scope(), r.scope())
	return g.joined(single(l), r, g.kind(), on, keys, false)
}

// lookupJoin joins a stream to a table: `s JOIN t`, `s LEFT JOIN t`,
// `t JOIN s` or `t RIGHT JOIN s`.
func (g *gen) lookupJoin(depth int) *from {
	g.feats.add("join.lookup")
	s, t := g.streamRel(depth), g.tableRel()
	on, keys := g.equiOn(s.scope(), t.scope())
	if g.r.IntN(3) == 0 {
		kind := []int{0, 2}[g.r.IntN(2)]
		return g.joined(single(t), s, kind, on, keys, true)
	}
	return g.joined(single(s), t, []int{0, 1}[g.r.IntN(2)], on, keys, true)
}

// intervalJoin joins two streams with a bound on the difference of their
// event times, which makes an interval join.
func (g *gen) intervalJoin(depth int) *from {
	g.feats.add("join.interval")
	l, r := g.streamRel(depth), g.streamRel(depth)
	lt, rt := l.alias+"."+l.time, r.alias+"."+r.time
	lo, hi := g.r.IntN(4), g.r.IntN(4)
	var bound string
	if g.r.IntN(2) == 0 {
		bound = fmt.Sprintf("%s BETWEEN %s - INTERVAL '%d' SECOND AND %s + INTERVAL '%d' SECOND", lt, rt, lo, rt, hi)
	} else {
		bound = fmt.Sprintf("%s >= %s - INTERVAL '%d' SECOND AND %s <= %s + INTERVAL '%d' SECOND", lt, rt, lo, lt, rt, hi)
	}
	on := bound
	var keys []scopeCol
	if g.r.IntN(5) > 0 {
		var eq string
		eq, keys = g.equality(l.scope(), r.scope())
		on = eq + " AND " + bound
	}
	if g.r.IntN(4) == 0 {
		on += " AND " + g.expr(append(l.scope(), r.scope()...)).pred(1)
	}
	return g.joined(single(l), r, g.kind(), on, keys, true)
}

// windowJoin joins two streams' equal TUMBLE windows.
func (g *gen) windowJoin() *from {
	g.feats.add("join.window")
	size := 2 + g.r.IntN(5)
	tvf := func() *rel {
		s := g.schema.Streams()[g.r.IntN(len(g.schema.Streams()))]
		w := g.tvfRel(g.sourceRel(s), fmt.Sprintf("TUMBLE(%s, %s, INTERVAL '%d' SECOND)", s.Name, s.TimeCol(), size))
		w.append = true
		return w
	}
	l, r := tvf(), tvf()
	on := fmt.Sprintf("%s.window_start = %s.window_start AND %s.window_end = %s.window_end", l.alias, r.alias, l.alias, r.alias)
	var keys []scopeCol
	if g.r.IntN(4) > 0 {
		var eq string
		eq, keys = g.equality(l.scope(), r.scope())
		on += " AND " + eq
	}
	return g.joined(single(l), r, g.kind(), on, keys, true)
}

// commaJoin lists two FROM items with a comma (its condition in WHERE) or
// joins them with CROSS JOIN.
func (g *gen) commaJoin(depth int) *from {
	l, r := g.rel(depth), g.rel(depth)
	f := &from{cols: append(l.scope(), r.scope()...), append: l.append && r.append}
	if l.unique != nil && r.unique != nil {
		f.unique = append(l.qualify(l.unique), r.qualify(r.unique)...)
	}
	if g.r.IntN(2) == 0 {
		g.feats.add("join.comma")
		f.text = l.item + ", " + r.item
	} else {
		g.feats.add("join.cross")
		f.text = l.item + " CROSS JOIN " + r.item
	}
	eq, keys := g.equality(l.scope(), r.scope())
	f.where, f.keys = []string{eq}, keys
	for _, x := range []string{l.repeat, r.repeat} {
		if x != "" {
			f.repeat = append(f.repeat, x)
		}
	}
	return f
}

// restrict returns a restriction of a join key to constants: an equality,
// a range, an IN list, a LIKE, a disjunction of equalities or a function
// of the key compared with a constant.
func (g *gen) restrict(c scopeCol) string {
	g.feats.add("join.key_restriction")
	e := g.expr(nil)
	switch c.typ {
	case String:
		switch g.r.IntN(5) {
		case 0:
			return "(" + c.ref + " LIKE " + likePatterns[g.r.IntN(len(likePatterns))] + ")"
		case 1:
			return "(UPPER(" + c.ref + ") = 'A')"
		case 2:
			return "(" + c.ref + " > " + e.literal(String) + ")"
		}
	case Int:
		switch g.r.IntN(5) {
		case 0:
			return fmt.Sprintf("(%s BETWEEN %d AND %d)", c.ref, g.r.IntN(4), 3+g.r.IntN(6))
		case 1:
			return "(" + c.ref + " " + []string{"<", ">=", "<>"}[g.r.IntN(3)] + " " + e.literal(Int) + ")"
		case 2:
			return fmt.Sprintf("((%s %% 2) = %d)", c.ref, g.r.IntN(2))
		}
	}
	return e.orEqualities(c.ref, c.typ)
}

// subqueryPred returns a WHERE conjunct with a subquery over a source or a
// helper view: `x [NOT] IN (SELECT ..)`, `NOT (x IN (SELECT ..))` or
// `[NOT] EXISTS (SELECT 1 ..)`, correlated with the outer columns (an
// equality, sometimes with an inequality) or not.
func (g *gen) subqueryPred(outer []scopeCol, depth int) string {
	var in *rel
	if depth > 0 && g.r.IntN(4) == 0 {
		in = g.selRel(g.sel(depth-1), true)
	} else {
		srcs := g.schema.Sources
		in = g.sourceRel(srcs[g.r.IntN(len(srcs))])
	}
	inner := in.scope()
	var conj []string
	if g.r.IntN(3) > 0 {
		conj = append(conj, g.expr(inner).pred(1))
	}
	if g.r.IntN(2) == 0 {
		g.feats.add("subquery.correlated")
		eq, _ := g.equality(inner, outer)
		conj = append(conj, eq)
		if g.r.IntN(4) == 0 {
			conj = append(conj, g.correlatedCmp(inner, outer))
		}
	}
	where := ""
	for i, c := range conj {
		if i == 0 {
			where = " WHERE " + c
		} else {
			where += " AND " + c
		}
	}
	switch g.r.IntN(5) {
	case 0, 1:
		x, item, ok := g.inItem(outer, inner)
		if !ok {
			break
		}
		sub := "(SELECT " + item + " FROM " + in.item + where + ")"
		switch g.r.IntN(4) {
		case 0:
			g.feats.add("subquery.not_in")
			return x + " NOT IN " + sub
		case 1:
			g.feats.add("subquery.not_in")
			return "NOT (" + x + " IN " + sub + ")"
		default:
			g.feats.add("subquery.in")
			return x + " IN " + sub
		}
	}
	sub := "(SELECT 1 FROM " + in.item + where + ")"
	if g.r.IntN(2) == 0 {
		g.feats.add("subquery.not_exists")
		return "NOT EXISTS " + sub
	}
	g.feats.add("subquery.exists")
	return "EXISTS " + sub
}

// inItem picks the tested value of an IN subquery (an outer column or an
// expression over the outer columns) and the subquery's result (an inner
// column) of the same type.
func (g *gen) inItem(outer, inner []scopeCol) (x, item string, ok bool) {
	for range 8 {
		c := inner[g.r.IntN(len(inner))]
		if c.typ != Int && c.typ != String && (c.typ != Decimal || g.r.IntN(4) > 0) {
			continue
		}
		x := g.expr(outer).value(c.typ, g.r.IntN(2))
		return x, c.ref, true
	}
	return "", "", false
}

// correlatedCmp compares an inner and an outer column of one number type
// with an inequality.
func (g *gen) correlatedCmp(inner, outer []scopeCol) string {
	for range 8 {
		a := inner[g.r.IntN(len(inner))]
		b := outer[g.r.IntN(len(outer))]
		if a.typ.numeric() && b.typ.numeric() {
			return a.ref + " " + []string{"<", "<=", ">", ">=", "<>"}[g.r.IntN(5)] + " " + b.ref
		}
	}
	return "TRUE"
}
