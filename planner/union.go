package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// buildSetOpr binds UNION [ALL]. MySQL's rule for mixing them holds: a
// UNION (distinct) removes duplicates from everything to its left, so the
// selects fold left, and a distinct step deduplicates the union so far.
// Each run of members between distinct steps becomes one n-ary Union whose
// column types are the common types over all its members, each member cast
// once, directly, to them: binding is linear in the number of members (a
// pairwise fold would copy the inputs so far at every member).
// INTERSECT and EXCEPT are not supported yet.
func (b *Builder) buildSetOpr(s *ast.SetOprStmt) (*built, *scope, error) {
	if s.With != nil || s.SelectList.With != nil {
		return nil, nil, b.unsupported(nil, "WITH around a UNION (put it inside each SELECT)")
	}
	var run []*built // the members of the current run of UNION ALL
	for i, n := range s.SelectList.Selects {
		var cur *built
		var op *ast.SetOprType
		switch x := n.(type) {
		case *ast.SelectStmt:
			var err error
			if cur, _, err = b.buildSelect(x); err != nil {
				return nil, nil, err
			}
			op = x.AfterSetOperator
		case *ast.SetOprSelectList:
			var err error
			if cur, _, err = b.buildSetOpr(&ast.SetOprStmt{SelectList: x}); err != nil {
				return nil, nil, err
			}
			op = x.AfterSetOperator
		default:
			return nil, nil, b.unsupported(nil, "this kind of UNION member")
		}
		if cur.limit != nil {
			cur.node = cur.limit
		}
		if i > 0 && (op == nil || (*op != ast.Union && *op != ast.UnionAll)) {
			return nil, nil, b.unsupported(nil, "INTERSECT and EXCEPT")
		}
		run = append(run, cur)
		if i > 0 && *op == ast.Union {
			u, err := b.union(run)
			if err != nil {
				return nil, nil, err
			}
			u.node = &plan.Aggregate{Input: u.node, Group: u.node.Output()}
			run = []*built{u}
		}
	}
	acc := run[0]
	if len(run) > 1 {
		var err error
		if acc, err = b.union(run); err != nil {
			return nil, nil, err
		}
	}
	if s.OrderBy != nil || s.Limit != nil {
		sel := &ast.SelectStmt{OrderBy: s.OrderBy, Limit: s.Limit}
		sc := &scope{}
		for i, id := range acc.node.Output() {
			sc.cols = append(sc.cols, scopeCol{name: acc.names[i], id: id})
		}
		ctx := &exprCtx{sc: sc, clause: "ORDER BY"}
		if s.OrderBy != nil {
			if err := b.buildOrderBy(acc, sel, ctx, make([]ast.ExprNode, len(acc.names))); err != nil {
				return nil, nil, err
			}
		}
		if s.Limit != nil {
			lim, err := b.buildLimit(s.Limit, acc.node)
			if err != nil {
				return nil, nil, err
			}
			acc.limit = lim
		}
	}
	return acc, nil, nil
}

// union concatenates bound relations with the same number of columns,
// casting each member's columns to the common types over all members. A
// member that is itself a Union needing no cast is flattened into this one.
func (b *Builder) union(members []*built) (*built, error) {
	first := members[0]
	width := len(first.node.Output())
	ts := make([]types.T, width)
	for i, id := range first.node.Output() {
		ts[i] = b.md.Column(id).Type
	}
	for _, m := range members[1:] {
		mc := m.node.Output()
		if len(mc) != width {
			return nil, b.errAtPos(b.start, "the SELECTs of a UNION have %d and %d columns", width, len(mc))
		}
		for i, id := range mc {
			lt, rt := ts[i], b.md.Column(id).Type
			t, err := b.unionType(nil, lt, rt)
			if err != nil {
				return nil, b.errAtPos(b.start, "column %d of the UNION: %s and %s have no common type", i+1, lt, rt)
			}
			ts[i] = t
		}
	}
	for i, t := range ts {
		if t.Kind == types.Null {
			ts[i] = types.VarcharT
		}
	}
	ins := make([]plan.Node, 0, len(members))
	inCols := make([]plan.ColList, 0, len(members))
	nullable := make([]bool, width)
	for _, m := range members {
		node, cols, err := b.castColumns(m.node, ts)
		if err != nil {
			return nil, err
		}
		if u, ok := node.(*plan.Union); ok {
			ins, inCols = append(ins, u.Ins...), append(inCols, u.InCols...)
		} else {
			ins, inCols = append(ins, node), append(inCols, cols)
		}
		for i, c := range cols {
			nullable[i] = nullable[i] || b.md.Column(c).Nullable
		}
	}
	cols := make(plan.ColList, width)
	for i, t := range ts {
		cols[i] = b.md.AddColumn(first.names[i], "", t, nullable[i])
	}
	return &built{names: first.names, node: &plan.Union{Ins: ins, InCols: inCols, Cols: cols}}, nil
}

// castColumns returns n with its output columns cast to ts, adding a
// projection only when a column's type differs.
func (b *Builder) castColumns(n plan.Node, ts []types.T) (plan.Node, plan.ColList, error) {
	out := n.Output()
	same := true
	for i, id := range out {
		if b.md.Column(id).Type != ts[i] {
			same = false
		}
	}
	if same {
		return n, out, nil
	}
	items := make([]plan.ProjItem, len(out))
	cols := make(plan.ColList, len(out))
	for i, id := range out {
		var e plan.Expr = b.md.Ref(id)
		cols[i] = id
		if c := b.md.Column(id); c.Type != ts[i] {
			var err error
			if e, err = b.cast(nil, e, ts[i]); err != nil {
				return nil, nil, err
			}
			cols[i] = b.md.AddColumn(c.Name, "", ts[i], c.Nullable)
		}
		items[i] = plan.ProjItem{ID: cols[i], Expr: e}
	}
	return &plan.Project{Input: n, Items: items}, cols, nil
}
