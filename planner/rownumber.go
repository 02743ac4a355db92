package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// windowBinder binds the window functions of one select list over in (after
// WHERE, GROUP BY and HAVING, as SQL evaluates window functions).
// Partition, order and argument expressions become columns of a projection
// below the node that reads them.
type windowBinder struct {
	b   *Builder
	sel *exprCtx
	in  plan.Node
	pre []plan.ProjItem // the projection under construction over in
	// computed maps the expressions computed as columns so far (by text
	// and type) to their columns, which every later node passes through.
	computed map[string]plan.ColumnID
}

// buildWindowFuncs binds the select list's window functions: each
// ROW_NUMBER() OVER (PARTITION BY .. ORDER BY ..) call becomes a RowNumber
// node (a Top-N under a rank filter), and the other calls, aggregates
// (AGG(x) OVER (...)) and window functions, one OverAggregate per distinct
// window (see overAggs). The returned map lets the select
// list refer to each call's result column by its restored text.
func (b *Builder) buildWindowFuncs(in plan.Node, fields []*ast.SelectField, sel *exprCtx) (plan.Node, map[string]plan.ColumnID, error) {
	v := &collector[*ast.WindowFuncExpr]{} // the window functions, f() OVER (...)
	for _, f := range fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if len(v.found) == 0 {
		return in, nil, nil
	}
	out := map[string]plan.ColumnID{}
	wb := &windowBinder{b: b, sel: sel, in: in, computed: map[string]plan.ColumnID{}}
	var overCalls []*ast.WindowFuncExpr
	for _, w := range v.found {
		key := windowText(w)
		if _, done := out[key]; done {
			continue
		}
		if w.Spec.Name.O != "" || w.Spec.Ref.O != "" {
			return nil, nil, b.unsupported(w, "named windows")
		}
		switch name := strings.ToLower(w.Name); {
		case name == rowNumberFunc:
			id, err := wb.rowNumber(w)
			if err != nil {
				return nil, nil, err
			}
			out[key] = id
		case aggFuncs[name] != 0, winFuncs[name] != 0:
			out[key] = 0 // bound below, with the calls sharing its window
			overCalls = append(overCalls, w)
		default:
			return nil, nil, b.unsupported(w, strings.ToUpper(name)+"() OVER (the window functions are ROW_NUMBER, RANK, "+
				"DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, COUNT, SUM, AVG, MIN and MAX)")
		}
	}
	if err := wb.overAggs(overCalls, out); err != nil {
		return nil, nil, err
	}
	return wb.in, out, nil
}

// startPre starts the projection under the next window node: the columns
// of the current input, passed through.
func (wb *windowBinder) startPre() {
	wb.pre = wb.pre[:0]
	for _, id := range wb.in.Output() {
		wb.pre = append(wb.pre, plan.ProjItem{ID: id, Expr: wb.b.md.Ref(id)})
	}
}

// column returns the column holding e's value below the next window node:
// an input column, or a new column of the projection.
func (wb *windowBinder) column(e plan.Expr) plan.ColumnID {
	if ref, ok := e.(*plan.ColRef); ok && wb.in.Output().Find(ref.ID) >= 0 {
		return ref.ID
	}
	key := e.String() + " " + e.Type().String()
	if id, ok := wb.computed[key]; ok {
		return id
	}
	id := wb.b.md.AddColumn(e.String(), "", e.Type(), e.Nullable())
	wb.pre = append(wb.pre, plan.ProjItem{ID: id, Expr: e})
	wb.computed[key] = id
	return id
}

// bind binds a partition, order or argument expression as a column.
func (wb *windowBinder) bind(e ast.ExprNode) (plan.ColumnID, error) {
	x, err := wb.b.bindExpr(e, wb.sel)
	if err != nil {
		return 0, err
	}
	return wb.column(x), nil
}

// finishPre puts the projection, if it computes anything, under the next
// window node, and returns that node's input.
func (wb *windowBinder) finishPre() plan.Node {
	if len(wb.pre) > len(wb.in.Output()) {
		return &plan.Project{Input: wb.in, Items: append([]plan.ProjItem(nil), wb.pre...)}
	}
	return wb.in
}

// partitionOrder binds a window's PARTITION BY and ORDER BY.
func (wb *windowBinder) partitionOrder(spec *ast.WindowSpec) (plan.ColList, []plan.SortKey, error) {
	var part plan.ColList
	var order []plan.SortKey
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			id, err := wb.bind(it.Expr)
			if err != nil {
				return nil, nil, err
			}
			part = append(part, id)
		}
	}
	if spec.OrderBy != nil {
		for _, it := range spec.OrderBy.Items {
			id, err := wb.bind(it.Expr)
			if err != nil {
				return nil, nil, err
			}
			order = append(order, plan.SortKey{Col: id, Desc: it.Desc})
		}
	}
	return part, order, nil
}

// rowNumber binds one ROW_NUMBER() call as a RowNumber node over the
// current input and returns its column.
func (wb *windowBinder) rowNumber(w *ast.WindowFuncExpr) (plan.ColumnID, error) {
	b := wb.b
	if w.Spec.OrderBy == nil {
		return 0, b.errAt(w, "ROW_NUMBER() needs ORDER BY: without it the numbering depends on arrival order")
	}
	wb.startPre()
	part, order, err := wb.partitionOrder(&w.Spec)
	if err != nil {
		return 0, err
	}
	rn := &plan.RowNumber{Input: wb.finishPre(), Partition: part, Order: order}
	rn.Out = b.md.AddColumn("row_number", "", types.BigIntT, false)
	wb.in = rn
	return rn.Out, nil
}
