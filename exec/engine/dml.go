package engine

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/mview"
	"github.com/eddysql/eddy/sql"
)

// dmlTarget returns the table an UPDATE or DELETE (verb) changes: a table
// fed by INSERT.
func (s *Session) dmlTarget(verb string, t sql.Ident, src *sql.Source) (*catalog.Object, error) {
	obj, found := s.eng.cat.Get(t.Name)
	if !found {
		e := bindErr(t.Pos, src, "unknown table '%s'", t.Name)
		e.Cause = &catalog.Error{Code: catalog.ErrNotFound, Name: t.Name, Msg: e.Msg}
		return nil, e
	}
	switch {
	case obj.Kind == catalog.View:
		return nil, bindErr(t.Pos, src, "cannot %s materialized view '%s': its rows come from its query", verb, obj.Name)
	case obj.Kind == catalog.Stream:
		return nil, bindErr(t.Pos, src, "cannot %s stream '%s': a stream only appends rows (use a table)", verb, obj.Name)
	case obj.Kind != catalog.Table:
		return nil, bindErr(t.Pos, src, "cannot %s %s '%s'", verb, obj.Kind, obj.Name)
	case obj.Connector() != "":
		return nil, bindErr(t.Pos, src, "cannot %s table '%s': it reads from connector '%s'", verb, obj.Name, obj.Connector())
	case !obj.LogOps:
		return nil, bindErr(t.Pos, src, "not supported yet: %s on table '%s', created by an older eddy whose log holds no deletions (recreate it)", verb, obj.Name)
	}
	return obj, nil
}

// deleteRows runs DELETE FROM t [WHERE ...]: it reads the rows of t the
// condition selects, as a pull query does, and appends their deletions to
// t's log as one entry, so that every view sees them in one step.
func (s *Session) deleteRows(ctx context.Context, st *sql.Delete) (*Result, error) {
	src := st.Source()
	obj, err := s.dmlTarget("DELETE FROM", st.Table, src)
	if err != nil {
		return nil, err
	}
	e := s.eng
	e.writes.Lock()
	defer e.writes.Unlock()
	cq, err := e.planQuery(st.Query, src, st.Start, snapshot, s.settings())
	if err != nil {
		return nil, err
	}
	rows, err := e.snapshotRows(ctx, cq, src)
	if err != nil {
		return nil, err
	}
	ops := make([]int8, len(rows))
	for i := range ops {
		ops[i] = catalog.LogDelete
	}
	if err := e.appendChanges(obj, rows, ops); err != nil {
		return nil, err
	}
	return ok(fmt.Sprintf("DELETE %d", len(rows))), nil
}

// update runs UPDATE t SET col = expr, ... [WHERE ...]: it reads the rows
// of t the condition selects with their new values, as a pull query does,
// and appends the changes to t's log as one entry: the new row of an
// unchanged key (an upsert), or the deletion of the old row and the new
// row when the key (or, in a table without one, any value) changes. Its
// count is of the rows whose values changed, as MySQL's rows affected.
func (s *Session) update(ctx context.Context, st *sql.Update) (*Result, error) {
	src := st.Source()
	obj, err := s.dmlTarget("UPDATE", st.Table, src)
	if err != nil {
		return nil, err
	}
	e := s.eng
	e.writes.Lock()
	defer e.writes.Unlock()
	bound, sets, err := e.newBuilder(src, st.Start).BuildUpdate(obj, st)
	if err != nil {
		return nil, err
	}
	cq, err := e.optimize(bound, s.settings())
	if err != nil {
		return nil, err
	}
	matched, err := e.snapshotRows(ctx, cq, src)
	if err != nil {
		return nil, err
	}
	n, ts := len(obj.Columns), obj.Types()
	var rows [][]types.Datum
	var ops []int8
	var moved [][]types.Datum // the new rows whose key changed
	changed := 0
	for _, m := range matched {
		old, row := m[:n], append([]types.Datum(nil), m[:n]...)
		for k, i := range sets {
			row[i] = m[n+k]
			if row[i].Null && !obj.Columns[i].Nullable {
				a := st.Sets[k]
				return nil, bindErr(a.Column.Pos, src, "column '%s' is NOT NULL: UPDATE cannot set it to NULL", obj.Columns[i].Name)
			}
		}
		if sameRow(old, row, ts) {
			continue
		}
		changed++
		if len(obj.PrimaryKey) > 0 && sameKey(old, row, obj.PrimaryKey, ts) {
			rows, ops = append(rows, row), append(ops, catalog.LogInsert)
			continue
		}
		rows, ops = append(rows, old), append(ops, catalog.LogDelete)
		moved = append(moved, row)
	}
	if len(obj.PrimaryKey) > 0 && len(moved) > 0 {
		if err := e.checkMovedKeys(ctx, obj, rows, ops, moved, src, st); err != nil {
			return nil, err
		}
	}
	// The deletions of moved rows come before their new rows, so that a
	// row may take a key another row of the statement leaves.
	for _, r := range moved {
		rows, ops = append(rows, r), append(ops, catalog.LogInsert)
	}
	if err := e.appendChanges(obj, rows, ops); err != nil {
		return nil, err
	}
	return ok(fmt.Sprintf("UPDATE %d", changed)), nil
}

// checkMovedKeys refuses an UPDATE of a table with a key that gives a row
// (moved: the new rows whose key changed) the key of another row: one the
// statement does not delete (rows and ops hold its changes so far), or
// another moved row.
func (e *Engine) checkMovedKeys(ctx context.Context, obj *catalog.Object, rows [][]types.Datum, ops []int8,
	moved [][]types.Datum, src *sql.Source, st *sql.Update) error {
	all, err := e.tableRows(ctx, obj)
	if err != nil {
		return err
	}
	ts := obj.Types()
	key := func(r []types.Datum) string {
		var b []byte
		for _, i := range obj.PrimaryKey {
			v := types.Format(r[i], ts[i]) // key columns are NOT NULL
			b = fmt.Appendf(b, "%d:%s", len(v), v)
		}
		return string(b)
	}
	taken := map[string]bool{}
	for _, r := range all {
		taken[key(r)] = true
	}
	for i, r := range rows {
		if ops[i] == catalog.LogDelete {
			delete(taken, key(r))
		}
	}
	for _, r := range moved {
		k := key(r)
		if taken[k] {
			return bindErr(st.Start, src, "UPDATE would give two rows of '%s' the primary key (%s)", obj.Name, keyText(r, obj))
		}
		taken[k] = true
	}
	return nil
}

// keyText shows the primary key values of row r of obj.
func keyText(r []types.Datum, obj *catalog.Object) string {
	s := ""
	for j, i := range obj.PrimaryKey {
		if j > 0 {
			s += ", "
		}
		s += types.Format(r[i], obj.Columns[i].Type)
	}
	return s
}

// tableRows returns every row obj holds now.
func (e *Engine) tableRows(ctx context.Context, obj *catalog.Object) ([][]types.Datum, error) {
	text := "SELECT * FROM " + sql.QuoteIdent(obj.Name)
	stmts, err := sql.Parse(text)
	if err != nil {
		return nil, err
	}
	sel := stmts[0].(*sql.Select)
	cq, err := e.planQuery(sel.Query, sel.Source(), sel.Start, snapshot, planSettings{parallelism: 1})
	if err != nil {
		return nil, err
	}
	return e.snapshotRows(ctx, cq, sel.Source())
}

// snapshotRows runs the snapshot query cq to its end and returns its
// result rows (a multiset: a row twice when the result holds it twice).
func (e *Engine) snapshotRows(ctx context.Context, cq *compiledQuery, src *sql.Source) ([][]types.Datum, error) {
	ts := cq.types()
	collect := &collector{ordered: cq.logical.Props().AppendOnly, types: ts}
	collect.mv = mview.New(cq.names(), ts, nil)
	if err := e.readToEnd(ctx, cq, "query", "Result", collect); err != nil {
		return nil, withSnippet(err, src)
	}
	if collect.ordered {
		return collect.rows, nil
	}
	return collect.mv.Snapshot(), nil
}

// appendChanges appends rows with their change ops (catalog.LogInsert,
// LogDelete) to table obj's log as one entry.
func (e *Engine) appendChanges(obj *catalog.Object, rows [][]types.Datum, ops []int8) error {
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, len(obj.Columns))
	for i, c := range obj.Columns {
		names[i] = c.Name
	}
	rec := types.BuildRecord(e.alloc, names, obj.Types(), rows)
	defer rec.Release()
	out := withOps(e, rec, ops)
	defer out.Release()
	if _, err := e.db.Log().Append(obj.ID, out); err != nil {
		return fmt.Errorf("writing to %s: %w", obj.Name, err)
	}
	return nil
}

// withOps returns rec with a last column, catalog.OpColumn, holding ops.
func withOps(e *Engine, rec arrow.RecordBatch, ops []int8) arrow.RecordBatch {
	b := array.NewInt8Builder(e.alloc)
	defer b.Release()
	b.AppendValues(ops, nil)
	opCol := b.NewArray()
	defer opCol.Release()
	fields := append(rec.Schema().Fields(), arrow.Field{Name: catalog.OpColumn, Type: arrow.PrimitiveTypes.Int8})
	cols := append(append([]arrow.Array(nil), rec.Columns()...), opCol)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// sameRow reports whether rows a and b of types ts hold equal values.
func sameRow(a, b []types.Datum, ts []types.T) bool {
	for i, t := range ts {
		if !types.Equal(a[i], b[i], t) {
			return false
		}
	}
	return true
}

// sameKey reports whether rows a and b hold equal values in the columns key.
func sameKey(a, b []types.Datum, key []int, ts []types.T) bool {
	for _, i := range key {
		if !types.Equal(a[i], b[i], ts[i]) {
			return false
		}
	}
	return true
}
