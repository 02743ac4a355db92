package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// windowFuncCollector finds the window functions (f() OVER (...)) of a
// select list, not descending into subqueries.
type windowFuncCollector struct{ found []*ast.WindowFuncExpr }

func (v *windowFuncCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch n := n.(type) {
	case *ast.WindowFuncExpr:
		v.found = append(v.found, n)
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (v *windowFuncCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// buildRowNumbers binds the select list's ROW_NUMBER() OVER (PARTITION BY ..
// ORDER BY ..) calls as RowNumber nodes over in (after WHERE, GROUP BY and
// HAVING, as SQL evaluates window functions). Partition and order
// expressions become columns of a projection first. The returned map lets
// the select list refer to each call's row number column.
func (b *Builder) buildRowNumbers(in plan.Node, fields []*ast.SelectField, sel *exprCtx) (plan.Node, map[string]plan.ColumnID, error) {
	v := &windowFuncCollector{}
	for _, f := range fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if len(v.found) == 0 {
		return in, nil, nil
	}
	out := map[string]plan.ColumnID{}
	for _, w := range v.found {
		key := restore(w)
		if _, done := out[key]; done {
			continue
		}
		switch strings.ToLower(w.Name) {
		case "row_number":
		case "rank", "dense_rank":
			return nil, nil, b.unsupported(w, strings.ToUpper(w.Name)+" (use ROW_NUMBER)")
		default:
			return nil, nil, b.unsupported(w, strings.ToUpper(w.Name)+"() OVER (window aggregates; Top-N with ROW_NUMBER is supported)")
		}
		spec := w.Spec
		if spec.Name.O != "" || spec.Ref.O != "" {
			return nil, nil, b.unsupported(w, "named windows")
		}
		if spec.OrderBy == nil {
			return nil, nil, b.errAt(w, "ROW_NUMBER() needs ORDER BY: without it the numbering depends on arrival order")
		}
		var pre []plan.ProjItem
		for _, id := range in.Output() {
			pre = append(pre, plan.ProjItem{ID: id, Expr: b.md.Ref(id)})
		}
		column := func(e ast.ExprNode) (plan.ColumnID, error) {
			x, err := b.bindExpr(e, sel)
			if err != nil {
				return 0, err
			}
			if ref, ok := x.(*plan.ColRef); ok && in.Output().Find(ref.ID) >= 0 {
				return ref.ID, nil
			}
			id := b.md.AddColumn(x.String(), "", x.Type(), x.Nullable())
			pre = append(pre, plan.ProjItem{ID: id, Expr: x})
			return id, nil
		}
		rn := &plan.RowNumber{}
		if spec.PartitionBy != nil {
			for _, it := range spec.PartitionBy.Items {
				id, err := column(it.Expr)
				if err != nil {
					return nil, nil, err
				}
				rn.Partition = append(rn.Partition, id)
			}
		}
		for _, it := range spec.OrderBy.Items {
			id, err := column(it.Expr)
			if err != nil {
				return nil, nil, err
			}
			rn.Order = append(rn.Order, plan.SortKey{Col: id, Desc: it.Desc})
		}
		if len(pre) > len(in.Output()) {
			in = &plan.Project{Input: in, Items: pre}
		}
		rn.Input = in
		rn.Out = b.md.AddColumn("row_number", "", types.BigIntT, false)
		out[key] = rn.Out
		in = rn
	}
	return in, out, nil
}
