package proptest

import (
	"fmt"
	"strings"
)

// aggCall returns an aggregate call over cols and its result column:
// COUNT(*), COUNT(x), COUNT(DISTINCT x), SUM, AVG, MIN or MAX. Arguments
// of SUM and AVG are exact (see exprGen.exact).
func (g *gen) aggCall(cols []scopeCol) (string, Column) {
	e := g.exactExpr(cols)
	num := func() (string, Type) {
		t := []Type{Int, Int, Double, Decimal}[g.r.IntN(4)]
		if g.r.IntN(3) > 0 {
			return e.leaf(t), t
		}
		return e.value(t, 1), t
	}
	switch g.r.IntN(8) {
	case 0:
		g.feats.add("agg.count_star")
		return "COUNT(*)", Column{Type: Int}
	case 1:
		g.feats.add("agg.count")
		return "COUNT(" + e.value(e.anyType(), 1) + ")", Column{Type: Int}
	case 2:
		g.feats.add("agg.count_distinct")
		t := []Type{Int, String, Decimal}[g.r.IntN(3)]
		return "COUNT(DISTINCT " + e.value(t, 1) + ")", Column{Type: Int}
	case 3, 4:
		g.feats.add("agg.sum")
		x, t := num()
		return "SUM(" + x + ")", Column{Type: t}
	case 5:
		g.feats.add("agg.avg")
		x, _ := num()
		return "AVG(" + x + ")", Column{Type: Double, Inexact: true}
	default:
		fn := []string{"MIN", "MAX"}[g.r.IntN(2)]
		g.feats.add("agg." + strings.ToLower(fn))
		t := []Type{Int, Double, Decimal, String, Time}[g.r.IntN(5)]
		e.exact = false
		return fn + "(" + e.value(t, 1) + ")", Column{Type: t, Inexact: true}
	}
}

// grouped writes an aggregation over f grouped by groups (qualified
// expressions, possibly none): the groups and 1 to 4 aggregates as the
// select list, WHERE, GROUP BY and sometimes HAVING.
func (g *gen) grouped(depth int, f *from, groups []scopeCol, head string) *sel {
	it := &items{}
	s := &sel{unique: []string{}}
	var gtext []string
	for _, c := range groups {
		s.unique = append(s.unique, it.add(c.ref, c.typ, c.inexact))
		gtext = append(gtext, c.ref)
	}
	having := append([]scopeCol(nil), groups...)
	for range 1 + g.r.IntN(4) {
		call, c := g.aggCall(f.cols)
		it.add(call, c.Type, c.Inexact)
		having = append(having, scopeCol{ref: call, typ: c.Type, inexact: c.Inexact})
	}
	if g.r.IntN(3) == 0 {
		call, c := g.aggCall(f.cols) // one only HAVING tests
		having = append(having, scopeCol{ref: call, typ: c.Type, inexact: c.Inexact})
	}
	s.sql = "SELECT " + it.String() + " FROM " + head + g.where(depth, f)
	if len(groups) > 0 {
		g.feats.add("group_by")
		s.sql += " GROUP BY " + strings.Join(gtext, ", ")
	} else {
		g.feats.add("agg.global")
	}
	if g.r.IntN(5) < 2 {
		g.feats.add("having")
		s.sql += " HAVING " + g.expr(having).pred(1)
		if GenSubqueries && g.r.IntN(3) == 0 {
			g.feats.add("subquery.having")
			s.sql += " AND " + g.subqueryConjunct(groups, depth)
		}
	}
	s.cols = it.cols
	return s
}

// aggSel returns a GROUP BY (or global) aggregation over a FROM item or a
// join. Groups are mostly columns, sometimes expressions.
func (g *gen) aggSel(depth int) *sel {
	f := g.fromAny(depth)
	var groups []scopeCol
	n := []int{0, 1, 1, 1, 2, 2, 3}[g.r.IntN(7)]
	e := g.expr(f.cols)
	for range n {
		c := f.cols[g.r.IntN(len(f.cols))]
		if g.r.IntN(4) == 0 {
			t := []Type{Int, String, Bool}[g.r.IntN(3)]
			c = scopeCol{ref: e.operand(t, 1), typ: t}
			if !strings.HasPrefix(c.ref, "(") {
				c.ref = "(" + c.ref + ")"
			}
		}
		groups = append(groups, c)
	}
	return g.grouped(depth, f, groups, f.text)
}

// windowSel returns an aggregation over a TUMBLE, HOP or CUMULATE window
// of a stream, the t2 table or a helper view with a time column, grouped
// by the window's bounds and sometimes a column.
func (g *gen) windowSel(depth int) *sel {
	var base *rel
	switch n := g.r.IntN(6); {
	case n < 4:
		base = g.sourceRel(g.schema.Streams()[g.r.IntN(len(g.schema.Streams()))])
	case n < 5 || depth == 0:
		base = g.sourceRel(g.schema.Source("t2"))
	default:
		base = g.selRel(g.filterSel(g.streamRel(0)), true)
	}
	size := 2 + g.r.IntN(9)
	var call string
	switch g.r.IntN(5) {
	case 0, 1:
		g.feats.add("window.tumble")
		call = fmt.Sprintf("TUMBLE(%s, %s, INTERVAL '%d' SECOND)", base.object, base.tvfTime, size)
	case 2, 3:
		g.feats.add("window.hop")
		call = fmt.Sprintf("HOP(%s, %s, INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)", base.object, base.tvfTime, 1+g.r.IntN(size), size)
	default:
		g.feats.add("window.cumulate")
		step := 1 + g.r.IntN(3)
		call = fmt.Sprintf("CUMULATE(%s, %s, INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)", base.object, base.tvfTime, step, step*(1+g.r.IntN(4)))
	}
	w := g.tvfRel(base, call)
	cols := w.scope()
	start, end := cols[len(cols)-2], cols[len(cols)-1]
	var groups []scopeCol
	switch g.r.IntN(4) {
	case 0:
		groups = []scopeCol{start}
	case 1:
		groups = []scopeCol{end}
	default:
		groups = []scopeCol{start, end}
	}
	if g.r.IntN(2) == 0 {
		for _, c := range cols[:len(cols)-2] {
			if c.typ == Int || c.typ == String {
				if g.r.IntN(2) == 0 {
					groups = append(groups, c)
					break
				}
			}
		}
	}
	s := g.grouped(depth, single(w), groups, w.item)
	bounds := len(groups) > 1 && groups[1] == end
	if src := g.schema.Source(base.object); bounds && src != nil && src.WatermarkSec > 0 && g.r.IntN(2) == 0 {
		g.feats.add("emit_on_window_close")
		s.emit = " EMIT ON WINDOW CLOSE"
	}
	return s
}

// tvfRel returns a window table function over a named object as a FROM
// item: the object's columns and window_start, window_end.
func (g *gen) tvfRel(base *rel, call string) *rel {
	a := g.alias("w")
	cols := append(append([]Column(nil), base.cols...), Column{Name: "window_start", Type: Time}, Column{Name: "window_end", Type: Time})
	return &rel{item: call + " AS " + a, alias: a, cols: cols, append: base.append, time: base.time}
}

// topNSel returns a Top-N: ROW_NUMBER() OVER (PARTITION BY .. ORDER BY ..)
// in a derived table, filtered by the row number in the query around it:
//
//	SELECT t.c1, t.c2 FROM (SELECT .. AS c1, .. AS c2,
//	    ROW_NUMBER() OVER (PARTITION BY .. ORDER BY ..) AS rn FROM ..) AS t
//	  WHERE t.rn <= 2
//
// Its ORDER BY lists every selected column after the chosen ones, so rows
// that tie are equal in every column the query selects and the result does
// not depend on which of them a plan keeps.
func (g *gen) topNSel(depth int) *sel {
	g.feats.add("topn")
	var f *from
	switch n := g.r.IntN(5); {
	case n < 2:
		f = single(g.rel(depth))
	case n < 3:
		f = g.joinFrom(depth)
	default:
		// A Top-N of groups: over an aggregation, whose rows update.
		f = single(g.selRel(g.aggSel(max(depth-1, 0)), g.r.IntN(2) == 0))
	}
	e := g.expr(f.cols)
	inner := &items{}
	var exprs []string
	for range 1 + g.r.IntN(3) {
		var x string
		var t Type
		if g.r.IntN(3) > 0 {
			c := f.cols[g.r.IntN(len(f.cols))]
			x, t = c.ref, c.typ
		} else {
			// An expression over a column. Not a constant: it sorts
			// nothing, and an integer literal is read as a position in
			// the select list, which ROW_NUMBER's OVER does not take
			// ("not supported yet": the case would compare nothing).
			t = g.randType()
			x = e.operand(t, 1)
			if !readsColumn(x, f.cols) {
				c := f.cols[g.r.IntN(len(f.cols))]
				x, t = c.ref, c.typ
			}
		}
		inner.add(x, t, true)
		exprs = append(exprs, x)
	}
	var partition, order []string
	perm := g.r.Perm(len(exprs))
	np := g.r.IntN(len(exprs))
	if np > 0 {
		g.feats.add("topn.partition")
	}
	for i, p := range perm {
		if i < np {
			partition = append(partition, exprs[p])
			continue
		}
		dir := ""
		if g.r.IntN(2) == 0 {
			dir = " DESC"
		}
		order = append(order, exprs[p]+dir)
	}
	over := "ORDER BY " + strings.Join(order, ", ")
	if len(partition) > 0 {
		over = "PARTITION BY " + strings.Join(partition, ", ") + " " + over
	}
	t := g.alias("t")
	innerSQL := fmt.Sprintf("SELECT %s, ROW_NUMBER() OVER (%s) AS rn FROM %s%s", inner.String(), over, f.text, g.where(depth, f))
	outer := &items{}
	var scope []scopeCol
	for _, c := range inner.cols {
		outer.add(t+"."+c.Name, c.Type, c.Inexact)
		scope = append(scope, scopeCol{ref: t + "." + c.Name, typ: c.Type, inexact: c.Inexact})
	}
	if g.r.IntN(3) == 0 {
		outer.add(t+".rn", Int, false)
	}
	n := 1 + g.r.IntN(3)
	var bound string
	switch g.r.IntN(4) {
	case 0:
		g.feats.add("topn.dedup")
		bound = t + ".rn = 1"
	case 1:
		bound = fmt.Sprintf("%s.rn < %d", t, n+1)
	case 2:
		bound = fmt.Sprintf("%d >= %s.rn", n, t)
	default:
		bound = fmt.Sprintf("%s.rn <= %d", t, n)
	}
	if g.r.IntN(3) == 0 {
		bound += " AND " + g.expr(scope).pred(1)
	}
	return &sel{sql: fmt.Sprintf("SELECT %s FROM (%s) AS %s WHERE %s", outer.String(), innerSQL, t, bound), cols: outer.cols}
}

// readsColumn reports whether expression x mentions one of cols.
func readsColumn(x string, cols []scopeCol) bool {
	for _, c := range cols {
		if strings.Contains(x, c.ref) {
			return true
		}
	}
	return false
}
