package planner

import (
	"errors"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// BindInsertValues evaluates the rows of INSERT INTO obj [(cols)] VALUES
// into values of obj's column types, in obj's column order. Columns the
// statement does not name are NULL.
func (b *Builder) BindInsertValues(obj *catalog.Object, st *sql.Insert) ([][]types.Datum, error) {
	if b.Fold == nil {
		return nil, b.errAtPos(b.start, "internal error: no constant evaluator")
	}
	b.mode = Snapshot // one-shot: NOW() is the statement's start
	target := make([]int, 0, len(obj.Columns))
	if len(st.Columns) == 0 {
		for i := range obj.Columns {
			target = append(target, i)
		}
	} else {
		seen := map[int]bool{}
		for _, id := range st.Columns {
			i := obj.ColumnIndex(id.Name)
			if i < 0 {
				e := b.errAtPos(id.Pos, "unknown column '%s' in '%s'", id.Name, obj.Name)
				sc := b.objectScope(obj)
				if s := sc.suggest(id.Name); s != "" {
					e.Hint = "did you mean '" + s + "'?"
				}
				return nil, e
			}
			if seen[i] {
				return nil, b.errAtPos(id.Pos, "column '%s' is listed twice", id.Name)
			}
			seen[i] = true
			target = append(target, i)
		}
		for i, c := range obj.Columns {
			if !seen[i] && !c.Nullable {
				return nil, b.errAtPos(st.Table.Pos, "column '%s' is NOT NULL and needs a value", c.Name)
			}
		}
	}
	empty := &exprCtx{sc: &scope{}, clause: "VALUES"}
	rows := make([][]types.Datum, 0, len(st.Rows))
	for r, row := range st.Rows {
		if len(row) != len(target) {
			var at ast.Node
			if len(row) > 0 {
				at = row[0]
			}
			return nil, b.errAt(at, "row %d has %d values but %d columns are inserted", r+1, len(row), len(target))
		}
		out := make([]types.Datum, len(obj.Columns))
		for i := range out {
			out[i] = types.NullDatum
		}
		for j, e := range row {
			col := obj.Columns[target[j]]
			x, err := b.bindExpr(e, empty)
			if err != nil {
				return nil, err
			}
			if x, err = b.coerce(e, x, col.Type); err != nil {
				return nil, err
			}
			if col.Type.IsInteger() && x.Type().Kind != col.Type.Kind {
				// TINYINT, SMALLINT and INT share BIGINT's representation;
				// an explicit cast checks the narrower range.
				x = &plan.Cast{Arg: x, To: col.Type, Pos: b.exprPos(e)}
			}
			var d types.Datum
			if k, ok := x.(*plan.Const); ok && k.Typ == col.Type {
				d = k.Val // a literal of the column's type: nothing to evaluate
			} else {
				d, err = b.Fold(x)
			}
			var xe plan.ExprError
			switch {
			case errors.As(err, &xe) && xe.ExprPos().IsKnown():
				// At the expression that failed, which may lie inside the value.
				p := xe.ExprPos()
				return nil, b.errAtPos(sql.Pos{Offset: p.Offset, Line: p.Line, Col: p.Col}, "row %d, column '%s': %s", r+1, col.Name, xe.Message())
			case err != nil:
				return nil, b.errAt(e, "row %d, column '%s': %s", r+1, col.Name, strings.TrimPrefix(err.Error(), "expr: "))
			}
			if d.Null && !col.Nullable {
				return nil, b.errAt(e, "row %d: column '%s' is NOT NULL", r+1, col.Name)
			}
			out[target[j]] = d
		}
		rows = append(rows, out)
	}
	return rows, nil
}

func (b *Builder) objectScope(obj *catalog.Object) *scope {
	sc := &scope{}
	for _, c := range obj.Columns {
		sc.cols = append(sc.cols, scopeCol{table: obj.Name, name: c.Name})
	}
	return sc
}

// BuildInsertQuery binds the query of a continuous INSERT INTO obj [(cols)]
// SELECT ...: the query's columns, matched by position to the named columns
// (or to all of obj's), are cast to the columns' types; columns not named
// are NULL. The result has obj's columns in obj's order.
func (b *Builder) BuildInsertQuery(obj *catalog.Object, st *sql.Insert) (*Query, error) {
	return b.buildInsertQuery(obj, st, Continuous)
}

// buildInsertQuery binds the query of INSERT INTO obj [(cols)] SELECT ...
// in mode.
func (b *Builder) buildInsertQuery(obj *catalog.Object, st *sql.Insert, mode Mode) (*Query, error) {
	q, err := b.BuildQuery(st.Query, mode)
	if err != nil {
		return nil, err
	}
	if q.EmitChanges {
		return nil, b.errAtPos(st.Query.Pos, "EMIT CHANGES belongs to push queries, not to INSERT ... SELECT")
	}
	target := make([]int, 0, len(obj.Columns))
	if len(st.Columns) == 0 {
		for i := range obj.Columns {
			target = append(target, i)
		}
	} else {
		for _, id := range st.Columns {
			i := obj.ColumnIndex(id.Name)
			if i < 0 {
				return nil, b.errAtPos(id.Pos, "unknown column '%s' in '%s'", id.Name, obj.Name)
			}
			target = append(target, i)
		}
	}
	if len(target) != len(q.Cols) {
		return nil, b.errAtPos(st.Query.Pos, "the query has %d columns but %d are inserted", len(q.Cols), len(target))
	}
	byCol := map[int]plan.ColumnID{}
	for j, i := range target {
		byCol[i] = q.Cols[j]
	}
	items := make([]plan.ProjItem, len(obj.Columns))
	names := make([]string, len(obj.Columns))
	for i, c := range obj.Columns {
		var e plan.Expr = &plan.Const{Val: types.NullDatum, Typ: c.Type}
		if id, ok := byCol[i]; ok {
			var err error
			if e, err = b.coerce(nil, b.md.Ref(id), c.Type); err != nil {
				return nil, b.errAtPos(st.Query.Pos, "column '%s': %v", c.Name, err)
			}
			if c.Type.IsInteger() && e.Type().Kind != c.Type.Kind {
				e = &plan.Cast{Arg: e, To: c.Type, Pos: b.exprPos(nil)}
			}
		} else if !c.Nullable {
			return nil, b.errAtPos(st.Table.Pos, "column '%s' is NOT NULL and needs a value", c.Name)
		}
		items[i] = plan.ProjItem{ID: b.md.AddColumn(c.Name, "", c.Type, c.Nullable), Expr: e}
		names[i] = c.Name
	}
	proj := &plan.Project{Input: q.Root, Items: items}
	q.Root, q.Cols, q.Names = proj, proj.Output(), names
	return q, nil
}
