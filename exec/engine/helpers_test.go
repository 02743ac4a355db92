package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// The engine's tests and benchmarks drive sessions through these.

// mustParse parses one statement, failing tb on an error.
func mustParse(tb testing.TB, text string) sql.Stmt {
	tb.Helper()
	st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// execOne runs one statement and returns its result and error.
func execOne(tb testing.TB, s *Session, stmt string) (*Result, error) {
	tb.Helper()
	return s.Execute(context.Background(), mustParse(tb, stmt))
}

// run executes a script on a session and returns the last result, failing
// tb on an error.
func run(tb testing.TB, s *Session, script string) *Result {
	tb.Helper()
	stmts, err := sql.Parse(script)
	if err != nil {
		tb.Fatal(err)
	}
	var res *Result
	for _, st := range stmts {
		if res, err = s.Execute(context.Background(), st); err != nil {
			tb.Fatalf("%s: %v", st.Source().Text(), err)
		}
	}
	return res
}

// text renders a result's rows, one line each, columns joined by " | ".
func text(res *Result) string {
	var b strings.Builder
	for _, row := range res.Rows {
		for i, d := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(types.Format(d, res.Columns[i].Type))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// showRow returns the row of SHOW <what> (as text, columns joined by " |
// ") whose first column is name, or "".
func showRow(t *testing.T, s *Session, what, name string) string {
	t.Helper()
	for _, line := range strings.Split(text(run(t, s, "SHOW "+what+";")), "\n") {
		if strings.HasPrefix(line, name+" | ") {
			return line
		}
	}
	return ""
}

// openEngine opens an engine with cfg, failing tb on an error.
func openEngine(tb testing.TB, cfg Config) *Engine {
	tb.Helper()
	e, err := Open(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// newSession opens an engine with cfg, closed when tb ends, and returns a
// session of it.
func newSession(tb testing.TB, cfg Config) *Session {
	tb.Helper()
	e := openEngine(tb, cfg)
	tb.Cleanup(func() { e.Close() })
	return e.NewSession(SessionOptions{})
}

// openAt opens an engine whose data directory and base directory are dir.
func openAt(t *testing.T, dir string) *Engine {
	t.Helper()
	return openEngine(t, Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 1})
}
