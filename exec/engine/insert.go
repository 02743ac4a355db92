package engine

import (
	"context"
	"fmt"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// insertTarget is the stream or table an INSERT writes: one fed by INSERT,
// not by a connector or a query.
func (s *Session) insertTarget(st *sql.Insert) (*catalog.Object, error) {
	src := st.Source()
	obj, found := s.eng.cat.Get(st.Table.Name)
	if !found {
		e := bindErr(st.Table.Pos, src, "unknown stream or table '%s'", st.Table.Name)
		e.Cause = &catalog.Error{Code: catalog.ErrNotFound, Name: st.Table.Name, Msg: e.Msg}
		return nil, e
	}
	switch {
	case obj.Kind == catalog.View:
		return nil, bindErr(st.Table.Pos, src, "cannot insert into materialized view '%s': its rows come from its query", obj.Name)
	case obj.Kind == catalog.Sink:
		return nil, bindErr(st.Table.Pos, src, "cannot insert into sink '%s'", obj.Name)
	case obj.Connector() != "":
		return nil, bindErr(st.Table.Pos, src, "cannot insert into %s '%s': it reads from connector '%s'", obj.Kind, obj.Name, obj.Connector())
	case !obj.IsSource():
		return nil, bindErr(st.Table.Pos, src, "cannot insert into derived %s '%s'", obj.Kind, obj.Name)
	}
	return obj, nil
}

// insert appends rows to an INSERT-fed stream's or table's durable log.
func (s *Session) insert(ctx context.Context, st *sql.Insert) (*Result, error) {
	src := st.Source()
	obj, err := s.insertTarget(st)
	if err != nil {
		return nil, err
	}
	if st.Query != nil && obj.Kind == catalog.Table {
		return s.insertCopy(ctx, obj, st)
	}
	if st.Query != nil {
		return s.insertSelect(obj, st)
	}
	rows, err := s.eng.newBuilder(src, st.Start).BindInsertValues(obj, st)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return ok("INSERT 0"), nil
	}
	if obj.Kind == catalog.Table {
		// Not between an UPDATE's read and its write: its rows may move to
		// the keys inserted.
		s.eng.writes.Lock()
		defer s.eng.writes.Unlock()
	}
	if err := s.eng.appendRows(obj, rows); err != nil {
		return nil, err
	}
	return ok(fmt.Sprintf("INSERT %d", len(rows))), nil
}

// appendRows appends rows to an INSERT-fed stream's or table's log as one
// entry (as inserts, when the log records ops).
func (e *Engine) appendRows(obj *catalog.Object, rows [][]types.Datum) error {
	if obj.LogOps {
		return e.appendChanges(obj, rows, make([]int8, len(rows))) // catalog.LogInsert is 0
	}
	names := make([]string, len(obj.Columns))
	for i, c := range obj.Columns {
		names[i] = c.Name
	}
	rec := types.BuildRecord(e.alloc, names, obj.Types(), rows)
	defer rec.Release()
	if _, err := e.db.Log().Append(obj.ID, rec); err != nil {
		return fmt.Errorf("writing to %s: %w", obj.Name, err)
	}
	return nil
}

// planInsertCopy plans the snapshot query of INSERT INTO table SELECT ....
func (s *Session) planInsertCopy(obj *catalog.Object, st *sql.Insert) (*compiledQuery, error) {
	bound, err := s.eng.newBuilder(st.Source(), st.Start).BuildInsertCopy(obj, st)
	if err != nil {
		return nil, err
	}
	return s.eng.optimize(bound, s.settings())
}

// insertCopy runs INSERT INTO table [(cols)] SELECT ...: it copies the
// query's current result into the table once, as RisingWave and
// Materialize do (an INSERT into a stream stays continuous). The rows are
// appended as one log entry; in a table with a primary key they are
// upserts, and two rows of the result with the same key are refused.
func (s *Session) insertCopy(ctx context.Context, obj *catalog.Object, st *sql.Insert) (*Result, error) {
	e, src := s.eng, st.Source()
	e.writes.Lock()
	defer e.writes.Unlock()
	cq, err := s.planInsertCopy(obj, st)
	if err != nil {
		return nil, err
	}
	rows, err := e.snapshotRows(ctx, cq, src)
	if err != nil {
		return nil, err
	}
	ts := obj.Types()
	keys := map[string]bool{}
	for _, r := range rows {
		for i, c := range obj.Columns {
			if r[i].Null && !c.Nullable {
				return nil, bindErr(st.Query.Pos, src, "column '%s' is NOT NULL, but the query gives it NULL", c.Name)
			}
		}
		if len(obj.PrimaryKey) == 0 {
			continue
		}
		k := ""
		for _, i := range obj.PrimaryKey {
			v := types.Format(r[i], ts[i])
			k += fmt.Sprintf("%d:%s", len(v), v)
		}
		if keys[k] {
			return nil, bindErr(st.Query.Pos, src, "the query gives two rows the primary key (%s) of '%s'", keyText(r, obj), obj.Name)
		}
		keys[k] = true
	}
	if len(rows) > 0 {
		if err := e.appendRows(obj, rows); err != nil {
			return nil, err
		}
	}
	return ok(fmt.Sprintf("INSERT %d", len(rows))), nil
}
