package planner

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// BuildUpdate binds the query of UPDATE obj SET col = expr, ... [WHERE
// ...] (sql.Update.Query, SELECT *, expr, ... FROM obj WHERE ...) as a
// snapshot query. Its result is obj's columns (the rows to change), then
// one column per assignment holding the new value, converted to the
// assigned column's type as INSERT converts a value. Sets returns the
// ordinal in obj of each assignment's column.
func (b *Builder) BuildUpdate(obj *catalog.Object, st *sql.Update) (*Query, []int, error) {
	sets := make([]int, len(st.Sets))
	seen := map[int]bool{}
	for k, a := range st.Sets {
		i := obj.ColumnIndex(a.Column.Name)
		if i < 0 {
			e := b.errAtPos(a.Column.Pos, "unknown column '%s' in '%s'", a.Column.Name, obj.Name)
			if s := b.objectScope(obj).suggest(a.Column.Name); s != "" {
				e.Hint = "did you mean '" + s + "'?"
			}
			return nil, nil, e
		}
		if seen[i] {
			return nil, nil, b.errAtPos(a.Column.Pos, "column '%s' is assigned twice", a.Column.Name)
		}
		seen[i], sets[k] = true, i
	}
	q, err := b.BuildQuery(st.Query, Snapshot)
	if err != nil {
		return nil, nil, err
	}
	n := len(obj.Columns)
	if len(q.Cols) != n+len(st.Sets) {
		return nil, nil, b.errAtPos(st.Start, "internal error: UPDATE's query has %d columns, want %d", len(q.Cols), n+len(st.Sets))
	}
	items := make([]plan.ProjItem, len(q.Cols))
	for j, id := range q.Cols {
		items[j] = plan.ProjItem{ID: id, Expr: b.md.Ref(id)}
		if j < n {
			continue
		}
		a, c := st.Sets[j-n], obj.Columns[sets[j-n]]
		x, err := b.coerce(a.Expr, b.md.Ref(id), c.Type)
		if err != nil {
			return nil, nil, err
		}
		if c.Type.IsInteger() && x.Type().Kind != c.Type.Kind {
			// TINYINT, SMALLINT and INT share BIGINT's representation; an
			// explicit cast checks the narrower range.
			x = &plan.Cast{Arg: x, To: c.Type, Pos: b.exprPos(a.Expr)}
		}
		items[j] = plan.ProjItem{ID: b.md.AddColumn(c.Name, "", c.Type, true), Expr: x}
	}
	proj := &plan.Project{Input: q.Root, Items: items}
	q.Root, q.Cols = proj, proj.Output()
	return q, sets, nil
}

// BuildInsertCopy binds the query of INSERT INTO obj [(cols)] SELECT ...
// into a table, which copies the query's current result once: as
// BuildInsertQuery does, but as a snapshot query.
func (b *Builder) BuildInsertCopy(obj *catalog.Object, st *sql.Insert) (*Query, error) {
	return b.buildInsertQuery(obj, st, Snapshot)
}
