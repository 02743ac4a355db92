package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// buildOrderBy adds a Sort for a pull query's ORDER BY. Keys may be result
// positions (ORDER BY 2), result names or aliases, or expressions; an
// expression not in the result is computed as a hidden column and dropped
// after sorting.
func (b *Builder) buildOrderBy(out *built, s *ast.SelectStmt, sel *exprCtx, exprs []ast.ExprNode) error {
	proj, ok := out.node.(*plan.Project)
	if !ok && b.mode == Snapshot {
		// SELECT DISTINCT: keys must be result columns.
		proj = nil
	}
	visible := out.node.Output()
	var keys []plan.SortKey
	var hidden []plan.ProjItem
	for _, item := range s.OrderBy.Items {
		col, err := b.orderKey(item.Expr, out.names, visible, exprs, sel)
		if err != nil {
			return err
		}
		if col == 0 {
			if proj == nil {
				return b.errAt(item.Expr, "with SELECT DISTINCT, ORDER BY expressions must appear in the select list")
			}
			e, err := b.bindExpr(item.Expr, sel)
			if err != nil {
				return err
			}
			col = b.md.AddColumn(e.String(), "", e.Type(), e.Nullable())
			hidden = append(hidden, plan.ProjItem{ID: col, Expr: e})
		}
		keys = append(keys, plan.SortKey{Col: col, Desc: item.Desc})
	}
	if len(b.outer) > 0 {
		// A subquery's rows have no order: ORDER BY matters only with a
		// LIMIT, which keeps the first rows (a Top-N, in any mode).
		if s.Limit == nil {
			return nil
		}
		return b.buildTopNLimit(out, s, proj, keys, hidden)
	}
	if b.mode != Snapshot {
		if s.Limit == nil || b.push {
			return b.errAt(s.OrderBy.Items[0].Expr, "ORDER BY is not allowed in a continuous query: its result is a set kept up to date, so order the rows when you read them (ORDER BY ... LIMIT n in a view is a Top-N)")
		}
		return b.buildTopNLimit(out, s, proj, keys, hidden)
	}
	var node plan.Node = out.node
	if len(hidden) > 0 {
		node = &plan.Project{Input: proj.Input, Items: append(append([]plan.ProjItem(nil), proj.Items...), hidden...)}
	}
	node = &plan.Sort{Input: node, Keys: keys}
	if len(hidden) > 0 {
		node = &plan.Project{Input: node, Items: b.md.IdentityItems(visible)}
	}
	out.node, out.sorted = node, true
	return nil
}

// orderKey resolves an ORDER BY key to a result column, or 0 when it must be
// computed.
func (b *Builder) orderKey(e ast.ExprNode, names []string, visible plan.ColList, exprs []ast.ExprNode, sel *exprCtx) (plan.ColumnID, error) {
	switch x := unparen(e).(type) {
	case *ast.PositionExpr:
		if x.N < 1 || x.N > len(visible) {
			return 0, b.errAt(e, "ORDER BY position %d is not in the select list", x.N)
		}
		return visible[x.N-1], nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O == "" {
			match := plan.ColumnID(0)
			for i, n := range names {
				if strings.EqualFold(n, x.Name.Name.O) {
					if match != 0 && match != visible[i] {
						return 0, b.errAt(e, "ORDER BY '%s' is ambiguous", x.Name.Name.O)
					}
					match = visible[i]
				}
			}
			if match != 0 {
				return match, nil
			}
		}
	}
	text := restore(e)
	for i, fe := range exprs {
		if fe != nil && restore(fe) == text {
			return visible[i], nil
		}
	}
	return 0, nil
}

// buildLimit binds LIMIT [offset,] count over node.
func (b *Builder) buildLimit(l *ast.Limit, node plan.Node) (*plan.Limit, error) {
	count, err := b.limitValue(l.Count)
	if err != nil {
		return nil, err
	}
	lim := &plan.Limit{Input: node, Count: count}
	if l.Offset != nil {
		if lim.Offset, err = b.limitValue(l.Offset); err != nil {
			return nil, err
		}
	}
	return lim, nil
}

func (b *Builder) limitValue(e ast.ExprNode) (int64, error) {
	return b.nonNegativeConst(e, "LIMIT", e, "LIMIT needs a non-negative integer")
}

// nonNegativeConst evaluates e, a constant written in clause, to a
// non-negative integer; when it is not one, it reports msg at node at.
func (b *Builder) nonNegativeConst(e ast.ExprNode, clause string, at ast.Node, msg string) (int64, error) {
	x, err := b.bindExpr(e, &exprCtx{sc: &scope{}, clause: clause})
	if err != nil {
		return 0, err
	}
	if !x.Type().IsInteger() || b.Fold == nil {
		return 0, b.errAt(at, "%s", msg)
	}
	d, err := b.Fold(x)
	if err != nil || d.Null || d.I < 0 {
		return 0, b.errAt(at, "%s", msg)
	}
	return d.I, nil
}

// buildTopNLimit binds ORDER BY ... LIMIT [offset,] n in a continuous query
// as a global Top-N: the result is kept as the first n rows in order (after
// skipping offset), updated as rows arrive and leave.
func (b *Builder) buildTopNLimit(out *built, s *ast.SelectStmt, proj *plan.Project, keys []plan.SortKey, hidden []plan.ProjItem) error {
	lim, err := b.buildLimit(s.Limit, out.node)
	if err != nil {
		return err
	}
	visible := out.node.Output()
	var node plan.Node = out.node
	if len(hidden) > 0 {
		if proj == nil {
			return b.errAt(s.OrderBy.Items[0].Expr, "with SELECT DISTINCT, ORDER BY expressions must appear in the select list")
		}
		node = &plan.Project{Input: proj.Input, Items: append(append([]plan.ProjItem(nil), proj.Items...), hidden...)}
	}
	top := &plan.TopN{Input: node, Order: keys, Limit: lim.Count + lim.Offset}
	node = top
	if lim.Offset > 0 {
		top.Out = b.md.AddColumn("row_number", "", types.BigIntT, false)
		node = &plan.Filter{Input: top, Pred: &plan.Binary{Op: plan.OpGt, L: b.md.Ref(top.Out),
			R: &plan.Const{Val: types.IntDatum(lim.Offset), Typ: types.BigIntT}, Typ: types.BoolT}}
	}
	if len(hidden) > 0 || lim.Offset > 0 {
		node = &plan.Project{Input: node, Items: b.md.IdentityItems(visible)}
	}
	out.node, out.topN = node, true
	return nil
}
