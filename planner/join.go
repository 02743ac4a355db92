package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/planner/plan"
)

// buildJoin binds `left JOIN right ON ...` (and USING, NATURAL, CROSS and
// comma-separated FROM lists, which TiDB parses as joins without a
// condition). The condition is bound over both sides' columns; the
// optimizer later splits it into equi-join keys and a residual, and pushes
// single-side conjuncts below the join.
func (b *Builder) buildJoin(j *ast.Join) (plan.Node, *scope, error) {
	left, lsc, err := b.buildTableRef(j.Left)
	if err != nil {
		return nil, nil, err
	}
	right, rsc, err := b.buildTableRef(j.Right)
	if err != nil {
		return nil, nil, err
	}
	kind := plan.InnerJoin
	switch {
	case b.tvfs != nil && b.tvfs.IsFullJoin(j):
		kind = plan.FullJoin
	case j.Tp == ast.LeftJoin:
		kind = plan.LeftJoin
	case j.Tp == ast.RightJoin:
		kind = plan.RightJoin
	}
	if j.StraightJoin {
		return nil, nil, b.unsupported(j, "STRAIGHT_JOIN (eddy chooses the join order)")
	}
	for _, t := range tablesOf(rsc) {
		if lsc.hasTable(t) {
			return nil, nil, b.errAtPos(b.namePos(t), "table name '%s' is used twice in FROM: give one of them an alias", t)
		}
	}
	// The columns a side pads with NULLs become nullable above the join.
	if kind.PreservesLeft() {
		b.markNullable(rsc)
	}
	if kind.PreservesRight() {
		b.markNullable(lsc)
	}
	b.md.Qualify = true
	sc := &scope{cols: append(append([]scopeCol(nil), lsc.cols...), rsc.cols...)}
	join := &plan.Join{Kind: kind, Left: left, Right: right}
	using := j.Using
	if j.NaturalJoin {
		using = naturalColumns(lsc, rsc)
	}
	var node plan.Node = join
	switch {
	case len(using) > 0:
		if node, sc, err = b.buildUsing(join, lsc, rsc, using); err != nil {
			return nil, nil, err
		}
	case j.On != nil:
		octx := withApplies(&exprCtx{sc: sc, clause: "ON"})
		on, err := b.bindBool(j.On.Expr, octx)
		if err != nil {
			return nil, nil, err
		}
		if len(*octx.applies) == 0 {
			join.On = on
			break
		}
		if kind != plan.InnerJoin {
			// An outer join keeps or pads rows by its condition: each
			// subquery applies to the side whose columns it reads (an
			// apply adds a column to each row and keeps the rows).
			if err := b.applyToSides(join, octx); err != nil {
				return nil, nil, err
			}
			join.On = on
			break
		}
		// The subqueries apply to the joined rows, which the condition
		// then filters: an inner join's condition is a filter above it.
		if node, err = b.attachApplies(join, octx); err != nil {
			return nil, nil, err
		}
		node = &plan.Filter{Input: node, Pred: on}
	case kind != plan.InnerJoin:
		return nil, nil, b.errAtPos(b.start, "a %s JOIN needs an ON or USING condition", strings.ToUpper(kind.String()))
	}
	if b.mode == Continuous {
		makeLookup(join)
	}
	return node, sc, nil
}

// makeLookup turns a continuous join of a stream with a table into a
// lookup join (SQL.md): the stream's rows look up the table's current
// rows. The stream becomes the left side: `table JOIN stream` and `table
// RIGHT JOIN stream` swap their sides (columns are referred to by ID, so
// the output is unchanged). A join that must keep every table row (the
// table on the preserved side of an outer join) stays a regular join.
func makeLookup(j *plan.Join) {
	stream := func(n plan.Node) bool { return n.Props().AppendOnly }
	switch {
	case plan.ReadsTable(j.Right) && stream(j.Left) && (j.Kind == plan.InnerJoin || j.Kind == plan.LeftJoin):
		j.Lookup = true
	case plan.ReadsTable(j.Left) && stream(j.Right) && (j.Kind == plan.InnerJoin || j.Kind == plan.RightJoin):
		j.Left, j.Right = j.Right, j.Left
		if j.Kind == plan.RightJoin {
			j.Kind = plan.LeftJoin
		}
		j.Lookup = true
	}
}

func tablesOf(sc *scope) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range sc.cols {
		if c.table != "" && !seen[strings.ToLower(c.table)] {
			seen[strings.ToLower(c.table)] = true
			out = append(out, c.table)
		}
	}
	return out
}

func (b *Builder) markNullable(sc *scope) {
	for _, c := range sc.cols {
		b.md.Column(c.id).Nullable = true
	}
}

// naturalColumns are the column names both sides share, in the left
// side's order (NATURAL JOIN joins on all of them).
func naturalColumns(l, r *scope) []*ast.ColumnName {
	var out []*ast.ColumnName
	for _, c := range l.cols {
		if c.hidden || c.qualifiedOnly {
			continue
		}
		if _, amb, ok := r.lookup("", c.name); ok && !amb {
			out = append(out, &ast.ColumnName{Name: ast.NewCIStr(c.name)})
		}
	}
	return out
}

// buildUsing binds USING (c, ...): the join condition is l.c = r.c for each
// column, and the result has one column c, listed first by *: the left
// one for INNER and LEFT joins, the right one for RIGHT joins and
// COALESCE(l.c, r.c) for FULL joins. l.c and r.c remain reachable by
// their qualified names.
func (b *Builder) buildUsing(join *plan.Join, lsc, rsc *scope, using []*ast.ColumnName) (plan.Node, *scope, error) {
	var conds []plan.Expr
	var merged []scopeCol
	var items []plan.ProjItem
	seen := map[string]bool{}
	for _, u := range using {
		name := u.Name.O
		if seen[strings.ToLower(name)] {
			return nil, nil, b.errAtPos(b.namePos(name), "column '%s' appears twice in USING", name)
		}
		seen[strings.ToLower(name)] = true
		lc, lamb, lok := lsc.lookup("", name)
		rc, ramb, rok := rsc.lookup("", name)
		switch {
		case !lok || !rok:
			side := "left"
			if lok {
				side = "right"
			}
			return nil, nil, b.errAtPos(b.namePos(name), "USING column '%s' is not a column of the %s side of the join", name, side)
		case lamb || ramb:
			return nil, nil, b.errAtPos(b.namePos(name), "USING column '%s' is ambiguous", name)
		}
		l, r := b.md.Ref(lc.id), b.md.Ref(rc.id)
		eq, err := b.compare(nil, plan.OpEq, l, r)
		if err != nil {
			return nil, nil, b.errAtPos(b.namePos(name), "USING column '%s': %v", name, err)
		}
		conds = append(conds, eq)
		out := scopeCol{name: name}
		switch join.Kind {
		case plan.RightJoin:
			out.id = rc.id
		case plan.FullJoin:
			t, err := b.unionType(nil, b.md.Column(lc.id).Type, b.md.Column(rc.id).Type)
			if err != nil {
				return nil, nil, b.errAtPos(b.namePos(name), "USING column '%s': %v", name, err)
			}
			le, _ := b.coerce(nil, l, t)
			re, _ := b.coerce(nil, r, t)
			out.id = b.md.AddColumn(name, "", t, b.md.Column(lc.id).Nullable && b.md.Column(rc.id).Nullable)
			items = append(items, plan.ProjItem{ID: out.id, Expr: &plan.Func{Name: "coalesce", Args: []plan.Expr{le, re}, Typ: t, Null: true}})
		default:
			out.id = lc.id
		}
		merged = append(merged, out)
	}
	join.On = plan.MakeAnd(conds)
	sc := &scope{cols: merged}
	for _, side := range []*scope{lsc, rsc} {
		for _, c := range side.cols {
			if seen[strings.ToLower(c.name)] {
				c.qualifiedOnly = true
			}
			sc.cols = append(sc.cols, c)
		}
	}
	if len(items) == 0 {
		return join, sc, nil
	}
	items = append(items, b.md.IdentityItems(join.Output())...)
	return &plan.Project{Input: join, Items: items}, sc, nil
}

// applyToSides attaches the applies of an outer join's ON condition to the
// join's inputs: each to the side whose columns its subquery reads (the
// right one when it reads neither). A subquery that reads both sides is
// not supported yet: its apply would have to run on the pairs, before the
// join pads.
func (b *Builder) applyToSides(j *plan.Join, c *exprCtx) error {
	lcols, rcols := plan.OutputSet(j.Left), plan.OutputSet(j.Right)
	var left, right []pendingApply
	for _, p := range *c.applies {
		refs := plan.OuterCols(p.apply.Right)
		switch l, r := refs.Intersects(lcols), refs.Intersects(rcols); {
		case l && r:
			return b.unsupported(p.node, "a subquery in an outer join's ON condition that reads both sides")
		case l:
			left = append(left, p)
		default:
			right = append(right, p)
		}
	}
	var err error
	*c.applies = left
	if j.Left, err = b.attachApplies(j.Left, c); err != nil {
		return err
	}
	*c.applies = right
	j.Right, err = b.attachApplies(j.Right, c)
	return err
}
