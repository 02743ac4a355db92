package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// correlation returns the columns of a's left side that its right side
// reads: the outer references the decorrelation rules remove.
func correlation(a *plan.Apply) plan.ColSet {
	refs := plan.OuterCols(a.Right)
	return refs.Difference(refs.Difference(plan.OutputSet(a.Left)))
}

// atMostOneRow reports whether n has at most one row (a key of no
// columns: a global aggregate).
func atMostOneRow(n plan.Node) bool {
	for _, k := range n.Props().Keys {
		if k.Empty() {
			return true
		}
	}
	return false
}

// singleRowCheck returns n with each row per value of the columns group
// checked to be alone: it groups n by them, counting the rows, and each
// other column is the group's only value — MAX of a group of one — passed
// through plan.SingleRow, which fails the query when the count is more
// than one. The output is n's, in n's order.
func singleRowCheck(md *plan.Metadata, n plan.Node, group plan.ColList, pos plan.Pos) plan.Node {
	cnt := md.AddColumn("count", "", types.BigIntT, false)
	agg := &plan.Aggregate{Input: n, Group: group, Aggs: []plan.AggCall{{Func: plan.AggCountStar, Out: cnt, Typ: types.BigIntT, Text: "COUNT(*)"}}}
	grouped := group.ToSet()
	var items []plan.ProjItem
	for _, c := range n.Output() {
		if grouped.Contains(c) {
			items = append(items, plan.ProjItem{ID: c, Expr: md.Ref(c)})
			continue
		}
		m := md.Column(c)
		v := md.AddColumn(m.Name, "", m.Type, true)
		agg.Aggs = append(agg.Aggs, plan.AggCall{Func: plan.AggMax, Arg: c, ArgTyp: m.Type, Out: v, Typ: m.Type, Text: "MAX(" + m.Name + ")"})
		items = append(items, plan.ProjItem{ID: c, Expr: plan.SingleRow(md.Ref(cnt), md.Ref(v), pos)})
	}
	return &plan.Project{Input: agg, Items: items}
}

// substCols replaces the references to the columns of from in e by
// references to the columns of to at the same places.
func substCols(md *plan.Metadata, e plan.Expr, from, to plan.ColList) plan.Expr {
	if e == nil {
		return nil
	}
	return plan.MapColRefs(e, func(r *plan.ColRef) plan.Expr {
		if i := from.Find(r.ID); i >= 0 {
			return md.Ref(to[i])
		}
		return r
	})
}

// sameValue is the condition that l and r, two columns of one type, hold
// the same value, NULL matching NULL, as equalities a join can use as keys:
// l = r when either cannot be NULL, else (l IS NULL) = (r IS NULL) AND
// COALESCE(l, z) = COALESCE(r, z) for the type's zero z.
func sameValue(md *plan.Metadata, l, r plan.ColumnID) plan.Expr {
	lr, rr := md.Ref(l), md.Ref(r)
	eq := func(a, b plan.Expr) plan.Expr { return &plan.Binary{Op: plan.OpEq, L: a, R: b, Typ: types.BoolT} }
	if !lr.Nullable() || !rr.Nullable() {
		return eq(lr, rr)
	}
	zero := &plan.Const{Val: types.Datum{}, Typ: lr.Typ}
	coalesce := func(x plan.Expr) plan.Expr {
		return &plan.Func{Name: "coalesce", Args: []plan.Expr{x, zero}, Typ: lr.Typ}
	}
	return plan.MakeAnd([]plan.Expr{
		eq(&plan.IsNull{Arg: lr}, &plan.IsNull{Arg: rr}),
		eq(coalesce(lr), coalesce(rr)),
	})
}
