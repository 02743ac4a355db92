package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// buildSetOpr binds UNION [ALL]. MySQL's rule for mixing them holds: a
// UNION (distinct) removes duplicates from everything to its left, so the
// selects fold left, and a distinct step deduplicates the union so far.
// INTERSECT and EXCEPT are not supported yet.
func (b *Builder) buildSetOpr(s *ast.SetOprStmt) (*built, *scope, error) {
	if s.With != nil || s.SelectList.With != nil {
		return nil, nil, b.unsupported(nil, "WITH around a UNION (put it inside each SELECT)")
	}
	var acc *built
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
		if i == 0 {
			acc = cur
			continue
		}
		if op == nil || (*op != ast.Union && *op != ast.UnionAll) {
			return nil, nil, b.unsupported(nil, "INTERSECT and EXCEPT")
		}
		u, err := b.union(acc, cur)
		if err != nil {
			return nil, nil, err
		}
		if *op == ast.Union {
			u.node = &plan.Aggregate{Input: u.node, Group: u.node.Output()}
		}
		acc = u
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

// union concatenates two bound relations with the same number of columns,
// casting each column to the two sides' common type.
func (b *Builder) union(l, r *built) (*built, error) {
	lc, rc := l.node.Output(), r.node.Output()
	if len(lc) != len(rc) {
		return nil, b.errAtPos(b.start, "the SELECTs of a UNION have %d and %d columns", len(lc), len(rc))
	}
	out := &built{names: l.names}
	ts := make([]types.T, len(lc))
	for i := range lc {
		lt, rt := b.md.Column(lc[i]).Type, b.md.Column(rc[i]).Type
		t, err := b.unionType(nil, lt, rt)
		if err != nil {
			return nil, b.errAtPos(b.start, "column %d of the UNION: %s and %s have no common type", i+1, lt, rt)
		}
		if t.Kind == types.Null {
			t = types.VarcharT
		}
		ts[i] = t
	}
	var ins []plan.Node
	var inCols []plan.ColList
	for _, side := range []*built{l, r} {
		node, cols, err := b.castColumns(side.node, ts)
		if err != nil {
			return nil, err
		}
		ins, inCols = append(ins, node), append(inCols, cols)
	}
	// A union of unions is one union.
	if lu, ok := ins[0].(*plan.Union); ok {
		ins = append(append([]plan.Node(nil), lu.Ins...), ins[1])
		inCols = append(append([]plan.ColList(nil), lu.InCols...), inCols[1])
	}
	cols := make(plan.ColList, len(ts))
	for i, t := range ts {
		nullable := false
		for _, ic := range inCols {
			nullable = nullable || b.md.Column(ic[i]).Nullable
		}
		cols[i] = b.md.AddColumn(l.names[i], "", t, nullable)
	}
	out.node = &plan.Union{Ins: ins, InCols: inCols, Cols: cols}
	return out, nil
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
