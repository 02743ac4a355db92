package proptest

import (
	"fmt"
	"strings"
)

// winSpec is the OVER clause of the window functions of one query.
type winSpec struct {
	partition []string
	order     []string // with directions
	// total is set when order ends with columns that identify a row, so
	// that the functions that depend on a row's position (ROW_NUMBER,
	// NTILE, LAG, LEAD, the value functions, ROWS frames) give the same
	// result in every plan; otherwise only functions whose result peers
	// share are generated.
	total bool
	// single is the one ORDER BY key when it is a number or a time
	// column, which RANGE frames with offsets move along; nil otherwise.
	single *scopeCol
}

// over returns the OVER clause with a frame (frame may be "").
func (w *winSpec) over(frame string) string {
	var parts []string
	if len(w.partition) > 0 {
		parts = append(parts, "PARTITION BY "+strings.Join(w.partition, ", "))
	}
	if len(w.order) > 0 {
		parts = append(parts, "ORDER BY "+strings.Join(w.order, ", "))
	}
	if frame != "" {
		parts = append(parts, frame)
	}
	return "OVER (" + strings.Join(parts, " ") + ")"
}

// winFuncSel returns a query with window functions over a FROM item or a
// join: some of the input's columns, then one to three window calls
// sharing an OVER clause (ranking, NTILE, LAG and LEAD, FIRST_VALUE,
// LAST_VALUE and NTH_VALUE, aggregates over ROWS, RANGE and GROUPS
// frames, some ending after the current row), sometimes filtered in a
// query around it:
//
//	SELECT w.c1, w.c3 FROM (SELECT a.k AS c1, RANK() OVER (PARTITION BY a.g
//	    ORDER BY a.v) AS c2, .. FROM t1 AS a) AS w WHERE w.c2 <= 2
//
// The input is a source, a join, a derived table or helper view (an
// aggregation, whose rows update): window results change as rows arrive,
// leave and move between partitions.
func (g *gen) winFuncSel(depth int) *sel {
	g.feats.add("winfunc")
	var f *from
	switch n := g.r.IntN(6); {
	case n < 3:
		f = single(g.rel(depth))
	case n < 4:
		f = g.joinFrom(depth)
	default:
		f = single(g.selRel(g.aggSel(max(depth-1, 0)), g.r.IntN(2) == 0))
	}
	w := g.winSpec(f)
	it := &items{}
	for range 1 + g.r.IntN(2) {
		c := f.cols[g.r.IntN(len(f.cols))]
		it.add(c.ref, c.typ, c.inexact)
	}
	for range 1 + g.r.IntN(3) {
		call, col := g.winCall(f, w)
		it.add(call, col.Type, col.Inexact)
	}
	inner := "SELECT " + it.String() + " FROM " + f.text + g.where(depth, f)
	if g.r.IntN(4) > 0 {
		return &sel{sql: inner, cols: it.cols}
	}
	// A filter on the window's results, in the query around it.
	g.feats.add("winfunc.outer_filter")
	a := g.alias("w")
	outer := &items{}
	var scope []scopeCol
	for _, c := range it.cols {
		outer.add(a+"."+c.Name, c.Type, c.Inexact)
		scope = append(scope, scopeCol{ref: a + "." + c.Name, typ: c.Type, inexact: c.Inexact})
	}
	return &sel{sql: fmt.Sprintf("SELECT %s FROM (%s) AS %s WHERE %s", outer.String(), inner, a, g.expr(scope).pred(1)),
		cols: outer.cols}
}

// winSpec picks the PARTITION BY and ORDER BY of a query over f.
func (g *gen) winSpec(f *from) *winSpec {
	w := &winSpec{}
	// Keys of rounded DOUBLEs (an AVG) could differ in their last bits
	// between plans, and so split or order rows differently.
	var cols []scopeCol
	for _, c := range f.cols {
		if !c.inexact {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return w
	}
	for range []int{0, 1, 1, 2}[g.r.IntN(4)] {
		g.feats.add("winfunc.partition")
		c := cols[g.r.IntN(len(cols))]
		if c.typ == Double || c.typ == Decimal {
			continue // wide domains: partitions of one row
		}
		w.partition = append(w.partition, c.ref)
	}
	if g.r.IntN(8) == 0 {
		return w // no ORDER BY: the whole partition is every row's frame
	}
	dir := func() string { return []string{"", " DESC", " ASC"}[g.r.IntN(3)] }
	c := cols[g.r.IntN(len(cols))]
	for range 3 {
		if c.typ == Int || c.typ == Time {
			break // prefer keys a RANGE frame's offsets can move along
		}
		c = cols[g.r.IntN(len(cols))]
	}
	w.order = append(w.order, c.ref+dir())
	switch n := g.r.IntN(10); {
	case n < 6 && f.unique != nil:
		w.total = true
		for _, u := range f.unique {
			if u != c.ref {
				w.order = append(w.order, u+dir())
			}
		}
	case n < 9:
		if c.typ == Int || c.typ == Time || c.typ == Decimal {
			w.single = &c
		}
	default:
		if c2 := cols[g.r.IntN(len(cols))]; c2.ref != c.ref {
			w.order = append(w.order, c2.ref+dir())
		}
	}
	return w
}

// winCall returns a window function call over f's columns with w's OVER
// clause, and its result column.
func (g *gen) winCall(f *from, w *winSpec) (string, Column) {
	e := g.exactExpr(f.cols)
	ordered := len(w.order) > 0
	for {
		switch n := g.r.IntN(9); {
		case n == 0 && ordered:
			g.feats.add("winfunc.rank")
			fn := []string{"RANK()", "DENSE_RANK()"}[g.r.IntN(2)]
			return fn + " " + w.over(""), Column{Type: Int}
		case n == 1 && ordered:
			g.feats.add("winfunc.dist")
			fn := []string{"PERCENT_RANK()", "CUME_DIST()"}[g.r.IntN(2)]
			return fn + " " + w.over(""), Column{Type: Double, Inexact: true}
		case n == 2 && w.total:
			g.feats.add("winfunc.row_number")
			if g.r.IntN(2) == 0 {
				g.feats.add("winfunc.ntile")
				return fmt.Sprintf("NTILE(%d) %s", 1+g.r.IntN(4), w.over("")), Column{Type: Int}
			}
			return "ROW_NUMBER() " + w.over(""), Column{Type: Int}
		case n == 3 && w.total:
			g.feats.add("winfunc.lag_lead")
			fn := []string{"LAG", "LEAD"}[g.r.IntN(2)]
			c := f.cols[g.r.IntN(len(f.cols))]
			args := c.ref
			switch g.r.IntN(3) {
			case 1:
				args += fmt.Sprintf(", %d", g.r.IntN(4))
			case 2:
				args += fmt.Sprintf(", %d, %s", 1+g.r.IntN(3), e.literal(c.typ))
			}
			return fn + "(" + args + ") " + w.over(""), Column{Type: c.typ, Inexact: c.inexact}
		case n == 4 && w.total:
			g.feats.add("winfunc.value")
			c := f.cols[g.r.IntN(len(f.cols))]
			call := []string{"FIRST_VALUE(" + c.ref + ")", "LAST_VALUE(" + c.ref + ")",
				fmt.Sprintf("NTH_VALUE(%s, %d)", c.ref, 1+g.r.IntN(3))}[g.r.IntN(3)]
			return call + " " + w.over(g.frame(w)), Column{Type: c.typ, Inexact: c.inexact}
		case n >= 5:
			call, col := g.winAgg(e)
			return call + " " + w.over(g.frame(w)), col
		}
	}
}

// winAgg returns an aggregate call to use over a window: COUNT, SUM, MIN,
// MAX or AVG, over exact arguments.
func (g *gen) winAgg(e *exprGen) (string, Column) {
	g.feats.add("winfunc.agg")
	switch g.r.IntN(6) {
	case 0:
		return "COUNT(*)", Column{Type: Int}
	case 1:
		return "COUNT(" + e.value(e.anyType(), 1) + ")", Column{Type: Int}
	case 2, 3:
		t := []Type{Int, Int, Double, Decimal}[g.r.IntN(4)]
		return "SUM(" + e.value(t, g.r.IntN(2)) + ")", Column{Type: t}
	case 4:
		t := []Type{Int, Double, Decimal, String, Time}[g.r.IntN(5)]
		return []string{"MIN", "MAX"}[g.r.IntN(2)] + "(" + e.value(t, g.r.IntN(2)) + ")", Column{Type: t}
	default:
		t := []Type{Int, Double, Decimal}[g.r.IntN(3)]
		return "AVG(" + e.leaf(t) + ")", Column{Type: Double, Inexact: true}
	}
}

// frame returns a frame clause that gives the same result in every plan
// under w: ROWS frames only under a total order, RANGE frames with offsets
// only over a single number or time key, GROUPS frames under any ORDER BY;
// "" for the default (RANGE from the partition's start to the current
// row's last peer).
func (g *gen) frame(w *winSpec) string {
	if len(w.order) == 0 || g.r.IntN(3) == 0 {
		return ""
	}
	bound := func(unit func(n int) string) (string, string) {
		lo, hi := g.r.IntN(4)-2, g.r.IntN(4)-1 // offsets around the current row
		if lo > hi {
			lo, hi = hi, lo
		}
		at := func(k int, start bool) string {
			switch {
			case k == 0:
				return "CURRENT ROW"
			case k < 0 && start && g.r.IntN(4) == 0:
				return "UNBOUNDED PRECEDING"
			case k > 0 && !start && g.r.IntN(4) == 0:
				return "UNBOUNDED FOLLOWING"
			case k < 0:
				return unit(-k) + " PRECEDING"
			}
			return unit(k) + " FOLLOWING"
		}
		return at(lo, true), at(hi, false)
	}
	plain := func(n int) string { return fmt.Sprint(n) }
	var kind string
	var lo, hi string
	switch n := g.r.IntN(3); {
	case n == 0 && w.total:
		g.feats.add("winfunc.frame_rows")
		kind = "ROWS"
		lo, hi = bound(plain)
	case n == 1 && w.single != nil:
		g.feats.add("winfunc.frame_range_offset")
		kind = "RANGE"
		unit := plain
		if w.single.typ == Time {
			unit = func(n int) string { return fmt.Sprintf("INTERVAL '%d' SECOND", n) }
		}
		lo, hi = bound(unit)
	case n == 2:
		g.feats.add("winfunc.frame_groups")
		kind = "GROUPS"
		lo, hi = bound(plain)
	default:
		g.feats.add("winfunc.frame_range")
		kind = "RANGE"
		lo, hi = []string{"UNBOUNDED PRECEDING", "CURRENT ROW"}[g.r.IntN(2)], []string{"CURRENT ROW", "UNBOUNDED FOLLOWING"}[g.r.IntN(2)]
	}
	if strings.HasSuffix(hi, "FOLLOWING") {
		g.feats.add("winfunc.frame_following")
	}
	return kind + " BETWEEN " + lo + " AND " + hi
}
