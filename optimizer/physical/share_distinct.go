package physical

import (
	"strings"

	"github.com/eddysql/eddy/planner/plan"
)

// maxSharedDistinct is how many DISTINCT aggregates may keep their values
// in one set per group: as many as the executor's presence set keeps a
// bit for (aggstate.MaxPresence).
const maxSharedDistinct = 32

// shareDistinct sets AggSpec.Share on the DISTINCT aggregates of n (COUNT,
// SUM, AVG) whose arguments hold the same column's values: the column
// itself, or a filter of it written CASE WHEN cond THEN col END, as in
// Nexmark's q15 and q16. Over an input that never retracts, such
// aggregates keep their values in one set per group, with a bit per
// aggregate, so that a row adding a value to four of them looks it up
// once instead of four times (over one that retracts, each keeps counts
// of its own, and n is left as it is). Sharing changes no result:
// aggregates that do see different values in a row stay right.
func shareDistinct(n *plan.Aggregate, specs []AggSpec) {
	if !n.Input.Props().AppendOnly {
		return
	}
	defs := projected(n.Input)
	var order []plan.ColumnID
	byCol := map[plan.ColumnID][]int{}
	for i, a := range n.Aggs {
		if !a.Distinct || (a.Func != plan.AggCount && a.Func != plan.AggSum && a.Func != plan.AggAvg) {
			continue
		}
		col := filteredColumn(a.Arg, defs)
		if _, ok := byCol[col]; !ok {
			order = append(order, col)
		}
		byCol[col] = append(byCol[col], i)
	}
	share := 0
	for _, col := range order {
		for g := byCol[col]; len(g) > 0; {
			k := min(len(g), maxSharedDistinct)
			if k > 1 {
				share++
				for _, i := range g[:k] {
					specs[i].Share = share
				}
			}
			g = g[k:]
		}
	}
}

// projected returns the expressions that a Project or Calc input computes,
// by output column; nil for other inputs.
func projected(in plan.Node) map[plan.ColumnID]plan.Expr {
	var items []plan.ProjItem
	switch p := in.(type) {
	case *plan.Project:
		items = p.Items
	case *plan.Calc:
		items = p.Items
	default:
		return nil
	}
	defs := make(map[plan.ColumnID]plan.Expr, len(items))
	for _, it := range items {
		defs[it.ID] = it.Expr
	}
	return defs
}

// filteredColumn returns the column whose values arg holds where it is not
// NULL: the column a projection copies or filters with CASE WHEN cond THEN
// col [ELSE NULL] END, or arg itself.
func filteredColumn(arg plan.ColumnID, defs map[plan.ColumnID]plan.Expr) plan.ColumnID {
	switch e := defs[arg].(type) {
	case *plan.ColRef:
		return e.ID
	case *plan.Case:
		if len(e.Whens) != 1 {
			return arg
		}
		if c, ok := e.Else.(*plan.Const); !ok || !c.Val.Null {
			return arg
		}
		if r, ok := e.Whens[0].Result.(*plan.ColRef); ok {
			return r.ID
		}
	}
	return arg
}

// sharedDistinctText renders the sets that share DISTINCT values, by the
// names of the aggregates' outputs, for EXPLAIN: "[(a, b), (c, d)]".
func sharedDistinctText(specs []AggSpec, outs []Col) string {
	var sets []string
	for share := 1; ; share++ {
		var names []string
		for i, s := range specs {
			if s.Share == share {
				names = append(names, outs[i].Name)
			}
		}
		if names == nil {
			break
		}
		sets = append(sets, "("+strings.Join(names, ", ")+")")
	}
	if sets == nil {
		return ""
	}
	return "[" + strings.Join(sets, ", ") + "]"
}
