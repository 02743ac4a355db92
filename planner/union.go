package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// setMember is a bound member of a set operation: the operator before it
// (nil for the first) and where it starts, for errors.
type setMember struct {
	b   *built
	op  *ast.SetOprType
	pos sql.Pos
}

// buildSetOpr binds UNION, INTERSECT and EXCEPT, each ALL or DISTINCT.
// TiDB parses a chain of them as a flat list; MySQL's precedence is
// applied here: INTERSECT binds tighter than UNION and EXCEPT, so each run
// of members joined by INTERSECT becomes one term first (left to right),
// then the terms fold left to right. MySQL's rule for mixing UNION ALL and
// UNION holds: a UNION (distinct) removes duplicates from everything to
// its left, so a distinct step deduplicates the union so far. Each run of
// terms between distinct steps (or EXCEPTs) becomes one n-ary Union whose
// column types are the common types over all its members, each member
// cast once, directly, to them: binding is linear in the number of
// members (a pairwise fold would copy the inputs so far at every member).
func (b *Builder) buildSetOpr(s *ast.SetOprStmt) (*built, *scope, error) {
	if s.With != nil || s.SelectList.With != nil {
		return nil, nil, b.unsupported(nil, "WITH around a UNION (put it inside each SELECT)")
	}
	var terms []setMember
	for i, n := range s.SelectList.Selects {
		m := setMember{pos: b.start}
		switch x := n.(type) {
		case *ast.SelectStmt:
			var err error
			if m.b, _, err = b.buildSelect(x); err != nil {
				return nil, nil, err
			}
			m.op, m.pos = x.AfterSetOperator, b.selectPos(x)
		case *ast.SetOprSelectList:
			var err error
			if m.b, _, err = b.buildSetOpr(&ast.SetOprStmt{SelectList: x}); err != nil {
				return nil, nil, err
			}
			m.op = x.AfterSetOperator
			if len(x.Selects) > 0 {
				if sel, ok := x.Selects[0].(*ast.SelectStmt); ok {
					m.pos = b.selectPos(sel)
				}
			}
		default:
			return nil, nil, b.unsupported(nil, "this kind of UNION member")
		}
		if m.b.limit != nil {
			m.b.node = m.b.limit
		}
		if i > 0 && m.op == nil {
			return nil, nil, b.unsupported(nil, "a set operation without an operator")
		}
		if i > 0 && (*m.op == ast.Intersect || *m.op == ast.IntersectAll) {
			t := &terms[len(terms)-1]
			var err error
			if t.b, err = b.setOp(plan.Intersect, *m.op == ast.IntersectAll, t.b, m); err != nil {
				return nil, nil, err
			}
			continue
		}
		terms = append(terms, m)
	}
	var run []*built // the members of the current run of UNION ALL
	var runPos []sql.Pos
	for i, t := range terms {
		if i > 0 && (*t.op == ast.Except || *t.op == ast.ExceptAll) {
			acc := run[0]
			if len(run) > 1 {
				var err error
				if acc, err = b.union(run, runPos); err != nil {
					return nil, nil, err
				}
			}
			e, err := b.setOp(plan.Except, *t.op == ast.ExceptAll, acc, t)
			if err != nil {
				return nil, nil, err
			}
			run, runPos = []*built{e}, runPos[:1]
			continue
		}
		run, runPos = append(run, t.b), append(runPos, t.pos)
		if i > 0 && *t.op == ast.Union {
			u, err := b.union(run, runPos)
			if err != nil {
				return nil, nil, err
			}
			u.node = &plan.Aggregate{Input: u.node, Group: u.node.Output()}
			run, runPos = []*built{u}, runPos[:1]
		}
	}
	acc := run[0]
	if len(run) > 1 {
		var err error
		if acc, err = b.union(run, runPos); err != nil {
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
// pos holds where each member starts, for errors.
func (b *Builder) union(members []*built, pos []sql.Pos) (*built, error) {
	first := members[0]
	width := len(first.node.Output())
	ts, err := b.commonTypes("UNION", members, pos)
	if err != nil {
		return nil, err
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

// setOp binds left INTERSECT or EXCEPT (ALL when all is set) right: the
// same column rules as UNION's, each side cast to the common types. Its
// columns are named after the left's; a column is nullable if the left's
// is, and for INTERSECT only if the right's is too (a row of the result
// is in both).
func (b *Builder) setOp(kind plan.SetOpKind, all bool, left *built, right setMember) (*built, error) {
	members := []*built{left, right.b}
	ts, err := b.commonTypes(kind.String(), members, []sql.Pos{b.start, right.pos})
	if err != nil {
		return nil, err
	}
	ln, lcols, err := b.castColumns(left.node, ts)
	if err != nil {
		return nil, err
	}
	rn, rcols, err := b.castColumns(right.b.node, ts)
	if err != nil {
		return nil, err
	}
	cols := make(plan.ColList, len(ts))
	for i, t := range ts {
		null := b.md.Column(lcols[i]).Nullable
		if kind == plan.Intersect {
			null = null && b.md.Column(rcols[i]).Nullable
		}
		cols[i] = b.md.AddColumn(left.names[i], "", t, null)
	}
	return &built{names: left.names, node: &plan.SetOp{Kind: kind, All: all, Left: ln, Right: rn,
		LeftCols: lcols, RightCols: rcols, Cols: cols}}, nil
}

// commonTypes returns the types of the columns of the set operation what
// over members, which must have the same number of columns: each column's
// common type over the members (VARCHAR for a column of NULLs). The error
// of a member that does not match is at its position in pos.
func (b *Builder) commonTypes(what string, members []*built, pos []sql.Pos) ([]types.T, error) {
	first := members[0]
	width := len(first.node.Output())
	ts := make([]types.T, width)
	for i, id := range first.node.Output() {
		ts[i] = b.md.Column(id).Type
	}
	for k, m := range members[1:] {
		mc := m.node.Output()
		if len(mc) != width {
			return nil, b.errAtPos(pos[k+1], "the SELECTs of %s have %d and %d columns", article(what), width, len(mc))
		}
		for i, id := range mc {
			lt, rt := ts[i], b.md.Column(id).Type
			t, err := b.unionType(nil, lt, rt)
			if err != nil {
				return nil, b.errAtPos(pos[k+1], "column %d of the %s: %s and %s have no common type", i+1, what, lt, rt)
			}
			ts[i] = t
		}
	}
	for i, t := range ts {
		if t.Kind == types.Null {
			ts[i] = types.VarcharT
		}
	}
	return ts, nil
}

// article returns the set operation what with its indefinite article.
func article(what string) string {
	if what == "UNION" {
		return "a " + what
	}
	return "an " + what
}

// selectPos returns where a SELECT of a set operation starts, as near as
// TiDB records it: its first select-list expression (a `*` has no
// position: the statement's start).
func (b *Builder) selectPos(s *ast.SelectStmt) sql.Pos {
	if s.Fields != nil && len(s.Fields.Fields) > 0 && s.Fields.Fields[0].Expr != nil {
		return b.posOf(s.Fields.Fields[0].Expr)
	}
	return b.start
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
