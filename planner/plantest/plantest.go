// Package plantest helps tests of the planner and the optimizer: an
// in-memory catalog that DDL statements populate, one-call binding of a
// query, and the walk over golden files their datadriven tests share.
package plantest

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/connector"
	"github.com/eddysql/eddy/exec/connector/builtin"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
	"github.com/eddysql/eddy/storage/mem"
)

// NewCatalog returns an empty in-memory catalog whose sources get their
// traits from eddy's connectors, as the engine's do.
func NewCatalog() (*catalog.Catalog, error) {
	return catalog.Open(mem.New().KV(), builtin.New().Traits)
}

// ExecDDL runs CREATE STREAM, CREATE TABLE and CREATE MATERIALIZED VIEW
// statements against cat. Views are bound (to learn their columns), not run.
func ExecDDL(cat *catalog.Catalog, text string) error {
	stmts, err := sql.Parse(text)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := execOne(cat, st); err != nil {
			return err
		}
	}
	return nil
}

func execOne(cat *catalog.Catalog, st sql.Stmt) error {
	switch x := st.(type) {
	case *sql.CreateStream:
		obj := &catalog.Object{Name: x.Name.Name, Kind: catalog.Stream, Options: map[string]string{}}
		for _, o := range x.With {
			obj.Options[o.Key] = o.Value
		}
		if err := addColumns(obj, x.Columns); err != nil {
			return err
		}
		if x.Watermark != nil {
			b := planner.NewBuilder(cat, x.Source(), x.Start)
			b.Fold = expr.EvalConst
			delay, err := b.BindWatermark(obj.Columns, x.Watermark)
			if err != nil {
				return err
			}
			col := obj.Columns[obj.ColumnIndex(x.Watermark.Column.Name)].Name
			obj.Watermark = &catalog.Watermark{Column: col, DelayMs: delay, Text: col}
			if delay > 0 {
				obj.Watermark.Text = col + " - " + types.FormatInterval(delay)
			}
		}
		if err := addDedup(obj); err != nil {
			return err
		}
		return cat.Create(obj)
	case *sql.CreateTable:
		obj := &catalog.Object{Name: x.Name.Name, Kind: catalog.Table}
		if err := addColumns(obj, x.Columns); err != nil {
			return err
		}
		for _, k := range x.PrimaryKey {
			obj.PrimaryKey = append(obj.PrimaryKey, obj.ColumnIndex(k.Name))
		}
		return cat.Create(obj)
	case *sql.CreateView:
		q, err := Bind(cat, x, planner.Continuous)
		if err != nil {
			return err
		}
		obj := &catalog.Object{Name: x.Name.Name, Kind: catalog.View, Query: x.Query.Text, DependsOn: q.Deps}
		for i, n := range q.Names {
			obj.Columns = append(obj.Columns, catalog.Column{Name: n, Type: q.Types()[i], Nullable: true})
		}
		return cat.Create(obj)
	}
	return fmt.Errorf("plantest: unsupported DDL %T", st)
}

// addDedup reads a stream's de-duplication options as the engine does
// (without its checks and messages): the key columns, the window and the
// false-positive rate, 0.01 unless given.
func addDedup(obj *catalog.Object) error {
	key, ok := obj.Options["dedup_key"]
	if !ok {
		return nil
	}
	w, err := connector.ParseDuration(obj.Options["dedup_window"])
	if err != nil {
		return fmt.Errorf("dedup_window: %w", err)
	}
	d := &catalog.Dedup{WindowMs: w.Milliseconds(), FPR: 0.01, Window: obj.Options["dedup_window"]}
	if v, ok := obj.Options["dedup_fpr"]; ok {
		if d.FPR, err = strconv.ParseFloat(v, 64); err != nil {
			return fmt.Errorf("dedup_fpr: %w", err)
		}
	}
	for _, k := range strings.Split(key, ",") {
		i := obj.ColumnIndex(strings.TrimSpace(k))
		if i < 0 {
			return fmt.Errorf("dedup_key: unknown column %q", k)
		}
		d.Keys = append(d.Keys, obj.Columns[i].Name)
	}
	obj.Dedup = d
	return nil
}

func addColumns(obj *catalog.Object, defs []sql.ColumnDef) error {
	for _, d := range defs {
		t, err := types.FromName(d.Type.Name, d.Type.Args)
		if err != nil {
			return err
		}
		obj.Columns = append(obj.Columns, catalog.Column{Name: d.Name.Name, Type: t, Nullable: !d.NotNull && !d.PrimaryKey})
	}
	return nil
}

// Bind binds the query of a SELECT or CREATE MATERIALIZED VIEW statement.
func Bind(cat *catalog.Catalog, st sql.Stmt, mode planner.Mode) (*planner.Query, error) {
	var q *sql.Query
	switch x := st.(type) {
	case *sql.Select:
		q = x.Query
	case *sql.CreateView:
		q = x.Query
	default:
		return nil, fmt.Errorf("plantest: not a query: %T", st)
	}
	b := planner.NewBuilder(cat, st.Source(), sql.Pos{Line: 1, Col: 1})
	b.Fold = expr.EvalConst
	b.Now = FixedNow
	return b.BuildQuery(q, mode)
}

// FixedNow is NOW() in the golden files' one-shot statements.
var FixedNow = time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC)

// BindText parses and binds one query.
func BindText(cat *catalog.Catalog, text string, mode planner.Mode) (*planner.Query, error) {
	st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	return Bind(cat, st, mode)
}

// AllocBytes returns the bytes f allocates on the heap. Tests of planning
// cost compare it between inputs of two sizes: unlike time, it does not
// depend on the machine's load.
func AllocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Walk runs the golden files under dir. Each file starts from an empty
// catalog that its exec-ddl commands fill (CREATE statements, printing
// nothing or the error); newFile returns the function that runs the
// file's other commands, and holds whatever else they share.
func Walk(t *testing.T, dir string, newFile func(t *testing.T, cat *catalog.Catalog) func(*testing.T, *datadriven.TestData) string) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		cat, err := NewCatalog()
		if err != nil {
			t.Fatal(err)
		}
		run := newFile(t, cat)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "exec-ddl" {
				return run(t, d)
			}
			if err := ExecDDL(cat, d.Input); err != nil {
				return "error: " + err.Error() + "\n"
			}
			return ""
		})
	})
}
