package engine

import (
	"maps"
	"time"

	"github.com/eddysql/eddy/catalog"
)

// The observation API: read-only snapshots of the catalog and of the
// running continuous queries, for front ends that watch the engine (the
// HTTP server's JSON API, its Prometheus collector and its web view).
// Every snapshot is a copy made when it is asked for, from figures the
// runtime keeps anyway (atomic counters, the checkpoint log): taking one
// does no work on the data path and may happen while queries run.

// ObjectInfo is a catalog object as the observation API shows it.
type ObjectInfo struct {
	Name string
	// Kind is stream, table, materialized view or sink.
	Kind string
	// Connector is the connector the object reads or writes: "insert"
	// for a stream or table fed by INSERT, "query" for a derived stream,
	// "" for a view.
	Connector string
	// Options are the object's WITH options, keys in lower case.
	Options    map[string]string
	Columns    []ColumnInfo
	PrimaryKey []string // column names
	Watermark  *WatermarkInfo
	// Query is the defining SQL of a view, sink or derived stream.
	Query     string
	DependsOn []string
	// Bounded says the input ends (a source whose connector says so).
	Bounded bool
	// Rows and RowsPerSec are the catalog's statistics of a stream's or
	// table's input (from ANALYZE or running queries; 0: unknown).
	Rows       int64
	RowsPerSec float64
}

// ColumnInfo is one column of an object: its name, SQL type and whether
// it may be NULL.
type ColumnInfo struct {
	Name     string
	Type     string
	Nullable bool
}

// WatermarkInfo is a stream's declared event time: WATERMARK FOR Column
// AS Text, Text being Column - Delay.
type WatermarkInfo struct {
	Column string
	Delay  time.Duration
	Text   string
}

// ObserveCatalog returns every object of the catalog, by kind (streams,
// tables, materialized views, sinks) and then by name.
func (e *Engine) ObserveCatalog() []ObjectInfo {
	var out []ObjectInfo
	for _, k := range []catalog.Kind{catalog.Stream, catalog.Table, catalog.View, catalog.Sink} {
		for _, o := range e.cat.List(k) {
			out = append(out, e.objectInfo(o))
		}
	}
	return out
}

// objectInfo copies what the observation API shows of o.
func (e *Engine) objectInfo(o *catalog.Object) ObjectInfo {
	info := ObjectInfo{Name: o.Name, Kind: o.Kind.String(), Connector: connectorName(o), Options: maps.Clone(o.Options),
		Query: o.Query, DependsOn: append([]string(nil), o.DependsOn...), Bounded: o.Traits.Bounded}
	if o.Kind == catalog.View {
		info.Connector = "" // a view is kept by its query and read by nothing else
	}
	for _, c := range o.Columns {
		info.Columns = append(info.Columns, ColumnInfo{Name: c.Name, Type: c.Type.String(), Nullable: c.Nullable})
	}
	for _, k := range o.PrimaryKey {
		if k >= 0 && k < len(o.Columns) {
			info.PrimaryKey = append(info.PrimaryKey, o.Columns[k].Name)
		}
	}
	if w := o.Watermark; w != nil {
		info.Watermark = &WatermarkInfo{Column: w.Column, Delay: time.Duration(w.DelayMs) * time.Millisecond, Text: w.Text}
	}
	if st, ok := e.cat.Stats(o.Name); ok {
		info.Rows, info.RowsPerSec = st.Rows, st.RowsPerSec
	}
	return info
}
