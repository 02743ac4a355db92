package engine

import (
	"fmt"
	"strings"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

func textColumns(names ...string) []Column {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n, Type: types.VarcharT}
	}
	return cols
}

func textRow(vals ...string) []types.Datum {
	row := make([]types.Datum, len(vals))
	for i, v := range vals {
		row[i] = types.StringDatum(v)
	}
	return row
}

func rowsResult(tag string, cols []Column, rows [][]types.Datum) *Result {
	return &Result{Kind: ResultRows, Tag: fmt.Sprintf("%s %d", tag, len(rows)), Columns: cols, Rows: rows}
}

func connectorName(o *catalog.Object) string {
	switch {
	case o.Connector() != "":
		return o.Connector()
	case o.Query != "":
		return "query" // a derived stream
	}
	return "insert"
}

func (s *Session) show(st *sql.Show) (*Result, error) {
	e := s.eng
	switch st.What {
	case sql.ShowStreams:
		var rows [][]types.Datum
		for _, o := range e.cat.List(catalog.Stream) {
			rows = append(rows, textRow(o.Name, connectorName(o), columnList(o)))
		}
		return rowsResult("SHOW", textColumns("name", "connector", "columns"), rows), nil
	case sql.ShowTables:
		var rows [][]types.Datum
		for _, o := range e.cat.List(catalog.Table) {
			var pk []string
			for _, k := range o.PrimaryKey {
				pk = append(pk, o.Columns[k].Name)
			}
			rows = append(rows, textRow(o.Name, connectorName(o), strings.Join(pk, ", "), columnList(o)))
		}
		return rowsResult("SHOW", textColumns("name", "connector", "primary_key", "columns"), rows), nil
	case sql.ShowViews:
		var rows [][]types.Datum
		for _, o := range e.cat.List(catalog.View) {
			n := int64(0)
			e.mu.Lock()
			q := e.queries[lower(o.Name)]
			e.mu.Unlock()
			if q != nil {
				n = int64(q.mv.Len())
			}
			row := textRow(o.Name, e.status(o.Name).String())
			row = append(row, types.IntDatum(n), types.StringDatum(o.Query))
			rows = append(rows, row)
		}
		cols := textColumns("name", "status")
		cols = append(cols, Column{Name: "rows", Type: types.BigIntT}, Column{Name: "query", Type: types.VarcharT})
		return rowsResult("SHOW", cols, rows), nil
	case sql.ShowSinks:
		var rows [][]types.Datum
		for _, o := range e.cat.List(catalog.Sink) {
			rows = append(rows, textRow(o.Name, connectorName(o), e.status(o.Name).String(), e.showGuarantee(o), o.Query))
		}
		return rowsResult("SHOW", textColumns("name", "connector", "status", "guarantee", "query"), rows), nil
	case sql.ShowQueries:
		return s.showQueries()
	case sql.ShowCheckpoints:
		return s.eng.showCheckpoints(), nil
	case sql.ShowFunctions:
		return showFunctions(), nil
	case sql.ShowAutoscale:
		return s.eng.showAutoscale(), nil
	case sql.ShowCluster:
		return s.showCluster()
	}
	return nil, fmt.Errorf("unknown SHOW")
}

// showFunctions lists every function a query can call, from the
// planner's registry: name, kind (scalar, aggregate, window, table) and
// signature, by name and kind.
func showFunctions() *Result {
	var rows [][]types.Datum
	for _, f := range planner.Functions() {
		sig := f.Signature
		if f.Volatile {
			sig += " (volatile)"
		}
		rows = append(rows, textRow(f.Name, f.Kind.String(), sig))
	}
	return rowsResult("SHOW", textColumns("name", "kind", "signature"), rows)
}

func columnList(o *catalog.Object) string {
	parts := make([]string, len(o.Columns))
	for i, c := range o.Columns {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}

func (s *Session) describe(st *sql.Describe) (*Result, error) {
	o, ok := s.eng.cat.Get(st.Name.Name)
	if !ok {
		e := bindErr(st.Name.Pos, st.Source(), "unknown stream, table, view or sink '%s'", st.Name.Name)
		e.Cause = &catalog.Error{Code: catalog.ErrNotFound, Name: st.Name.Name, Msg: e.Msg}
		return nil, e
	}
	key := map[int]bool{}
	for _, k := range o.PrimaryKey {
		key[k] = true
	}
	// Once ANALYZE has measured the columns, two more columns show their
	// estimated distinct values and null fraction (NULL where unknown).
	stats, _ := s.eng.cat.Stats(o.Name)
	withStats := len(stats.Columns) > 0
	var rows [][]types.Datum
	for i, c := range o.Columns {
		null, k := "YES", ""
		if !c.Nullable {
			null = "NO"
		}
		if key[i] {
			k = "PRI"
			if o.Kind == catalog.View {
				k = "UNI" // a derived unique key, not a declared one
			}
		}
		row := textRow(c.Name, c.Type.String(), null, k)
		if withStats {
			row = append(row, columnStatsRow(stats, c.Name)...)
		}
		rows = append(rows, row)
	}
	cols := textColumns("column", "type", "nullable", "key")
	if withStats {
		cols = append(cols, Column{Name: "distinct", Type: types.BigIntT}, Column{Name: "null_frac", Type: types.DoubleT})
	}
	for _, p := range s.eng.describeProperties(o) {
		row := make([]types.Datum, len(cols))
		for i := range row {
			row[i] = types.NullDatum
		}
		row[0], row[1] = types.StringDatum(p[0]), types.StringDatum(p[1])
		rows = append(rows, row)
	}
	return rowsResult("DESCRIBE", cols, rows), nil
}

// describeProperties are the rows DESCRIBE shows after the columns, as
// name and value (their nullable and key are NULL, which no column's
// are): the watermark, the connector and every other WITH option
// ("option <name>"), and for a continuous insert the stream it feeds.
func (e *Engine) describeProperties(o *catalog.Object) [][2]string {
	var out [][2]string
	if w := o.Watermark; w != nil {
		out = append(out, [2]string{"watermark", w.Text})
	}
	if target, ok := e.insertTarget(o); ok {
		return append(out, [2]string{"inserts into", target})
	}
	if c := o.Connector(); c != "" {
		out = append(out, [2]string{"connector", c})
	}
	for _, kv := range o.SortedOptions() {
		if kv[0] != "connector" {
			out = append(out, [2]string{"option " + kv[0], kv[1]})
		}
	}
	return out
}
