package tpch_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/bench/tpch"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// scaleFactor is the TPC-H scale factor of the package's tests and
// benchmarks: go test ./bench/tpch -args -tpch.sf=0.05. dbgen generates
// once per process, so every test of a run shares it.
var scaleFactor = flag.Float64("tpch.sf", 0.01, "TPC-H scale factor of the tests and benchmarks, in (0, 1]")

// loadedParallelism is the parallelism of the views over loaded tables
// (each view alone, timed, and BenchmarkTPCH): -tpch.parallelism=2.
var loadedParallelism = flag.Int("tpch.parallelism", 1, "parallelism of the views created over loaded tables (the timed test and BenchmarkTPCH)")

// tempDir holds the CSV files the file-stream tests read.
var tempDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "eddy-tpch-")
	if err != nil {
		panic(err)
	}
	tempDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tables returns the generated tables, skipping the test in -short mode
// (dbgen's initialization alone takes about 10 s).
func tables(tb testing.TB) []*tpch.Table {
	tb.Helper()
	if testing.Short() {
		tb.Skip("generating TPC-H data takes about 10 s")
	}
	ts, err := tpch.Generate(*scaleFactor)
	if err != nil {
		tb.Fatal(err)
	}
	return ts
}

// table returns the generated table of that name.
func table(tb testing.TB, name string) *tpch.Table {
	tb.Helper()
	for _, t := range tables(tb) {
		if t.Name == name {
			return t
		}
	}
	tb.Fatalf("no table %s", name)
	return nil
}

// eddy is a session on a new in-memory engine.
type eddy struct {
	ctx context.Context
	e   *engine.Engine
	s   *engine.Session
}

// openEddy opens an in-memory engine whose file connectors read dir and
// whose queries run at that parallelism; the caller closes it.
func openEddy(tb testing.TB, dir string, parallelism int) *eddy {
	tb.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{FileRoot: dir, Parallelism: parallelism})
	if err != nil {
		tb.Fatal(err)
	}
	return &eddy{ctx: ctx, e: e, s: e.NewSession(engine.SessionOptions{})}
}

// close closes the engine, stopping its views.
func (d *eddy) close() { d.e.Close() }

// exec runs a script and returns its last statement's result.
func (d *eddy) exec(text string) (*engine.Result, error) {
	stmts, err := sql.Parse(text)
	if err != nil {
		return nil, err
	}
	var last *engine.Result
	for _, st := range stmts {
		if last, err = d.s.Execute(d.ctx, st); err != nil {
			return nil, err
		}
	}
	return last, nil
}

// must is exec that fails the test on an error.
func (d *eddy) must(tb testing.TB, text string) *engine.Result {
	tb.Helper()
	res, err := d.exec(text)
	if err != nil {
		tb.Fatalf("%.200s: %v", text, err)
	}
	return res
}

// createTables creates the tables, fed by INSERT, with their primary keys.
func (d *eddy) createTables(tb testing.TB, ts []*tpch.Table) {
	tb.Helper()
	for _, t := range ts {
		d.must(tb, fmt.Sprintf("CREATE TABLE %s (%s, PRIMARY KEY (%s));", t.Name, t.ColumnList(), strings.Join(t.Key, ", ")))
	}
}

// insertBatch is how many rows one INSERT statement carries.
const insertBatch = 1000

// run runs scripts in order, parsing each as it comes: held parsed for
// the process, the INSERT statements of SF 0.01 raised the test's peak
// memory from 2.5 GB to 3.5 GB, which would not scale to SF 0.1.
func (d *eddy) run(tb testing.TB, texts []string) {
	tb.Helper()
	for _, text := range texts {
		d.must(tb, text)
	}
}

// halves are the INSERT statements of every table's rows in two halves,
// row i in half i % 2, made once per process.
var halves = sync.OnceValues(func() ([2][]string, error) {
	var out [2][]string
	ts, err := tpch.Generate(*scaleFactor)
	if err != nil {
		return out, err
	}
	for half := range out {
		for _, t := range ts {
			out[half] = append(out[half], insertTexts(t, half, 2)...)
		}
	}
	return out, nil
})

// insertTexts are the INSERT statements of the rows of t whose index i has
// i % parts == part.
func insertTexts(t *tpch.Table, part, parts int) []string {
	var out []string
	var b strings.Builder
	n := 0
	flush := func() {
		if n > 0 {
			b.WriteString(";")
			out = append(out, b.String())
		}
		b.Reset()
		n = 0
	}
	for i, row := range t.Rows {
		if i%parts != part {
			continue
		}
		if n == 0 {
			b.WriteString("INSERT INTO " + t.Name + " VALUES ")
		} else {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			writeLiteral(&b, v, t.Columns[j].Type)
		}
		b.WriteByte(')')
		if n++; n == insertBatch {
			flush()
		}
	}
	flush()
	return out
}

// writeLiteral writes a value as a SQL literal of a column of type typ.
func writeLiteral(b *strings.Builder, v any, typ string) {
	switch v := v.(type) {
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
	case string:
		if typ == "DATE" {
			b.WriteString("DATE ")
		}
		b.WriteString("'" + strings.ReplaceAll(v, "'", "''") + "'")
	default:
		panic(fmt.Sprintf("value %v (%T)", v, v))
	}
}
