package proptest

import (
	"strings"
)

// setOps are the set operators setOpSel chains, with the feature each
// names: INTERSECT and EXCEPT, DISTINCT (spelled or not) and ALL.
var setOps = []struct{ op, feature string }{
	{" INTERSECT ", "setop.intersect"},
	{" INTERSECT DISTINCT ", "setop.intersect"},
	{" INTERSECT ALL ", "setop.intersect_all"},
	{" EXCEPT ", "setop.except"},
	{" EXCEPT DISTINCT ", "setop.except"},
	{" EXCEPT ALL ", "setop.except_all"},
}

// setOpSel returns two or three projections with the same column types
// joined by INTERSECT or EXCEPT (ALL or DISTINCT), sometimes with a UNION
// or UNION ALL among them (INTERSECT binds tighter than the others, which
// go left to right):
//
//	SELECT a.k AS c1 FROM s1 AS a WHERE .. EXCEPT ALL SELECT b.g AS c1 FROM t2 AS b
//
// The items are mostly columns, of the small domains when they can be, so
// that the inputs share rows; each input may be a join, a derived table or
// a helper view (an aggregate, whose rows retract).
func (g *gen) setOpSel(depth int) *sel {
	var ts []Type
	for range 1 + g.r.IntN(2) {
		ts = append(ts, []Type{Int, Int, String, String, Bool, Decimal, Time}[g.r.IntN(7)])
	}
	s := &sel{}
	var text strings.Builder
	n := 2 + g.r.IntN(2)
	for i := range n {
		if i > 0 {
			if i == n-1 && n == 3 && g.r.IntN(3) == 0 {
				g.feats.add("setop.mixed_union")
				text.WriteString([]string{" UNION ", " UNION ALL "}[g.r.IntN(2)])
			} else {
				o := setOps[g.r.IntN(len(setOps))]
				g.feats.add(o.feature)
				text.WriteString(o.op)
			}
		}
		f := g.fromAny(depth)
		e := g.exactExpr(f.cols)
		it := &items{}
		for _, t := range ts {
			x := e.leaf(t)
			if g.r.IntN(5) == 0 {
				x = e.value(t, 1)
			}
			it.add(x, t, false)
		}
		s.cols = it.cols
		text.WriteString("SELECT " + it.String() + " FROM " + f.text + g.where(depth, f))
	}
	s.sql = text.String()
	return s
}
