package client

import (
	"context"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/cmd/eddy/server"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// testParallelism is the default parallelism of the tests' engines, the
// same for the embedded and the served one so that their plans agree.
const testParallelism = 2

// openEngine opens an engine in a temporary data directory, with file
// connectors confined to root (a temporary directory when ""), closed when
// t ends.
func openEngine(t *testing.T, root string) *engine.Engine {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	eng, err := engine.Open(context.Background(), engine.Config{DataDir: t.TempDir(), FileRoot: root, Parallelism: testParallelism})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
	})
	return eng
}

// startServer serves a new engine on a free loopback port until t ends.
func startServer(t *testing.T) *server.Server { return startServerAt(t, "") }

// startServerAt is startServer with the engine's file root.
func startServerAt(t *testing.T, root string) *server.Server {
	t.Helper()
	eng := openEngine(t, root)
	srv, err := server.Listen(server.Config{Addr: "127.0.0.1:0", Engine: eng, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(srv.Close) // before the engine closes: cleanups run last first
	return srv
}

// dial connects a session to srv, closed when t ends.
func dial(t *testing.T, srv *server.Server) *Session {
	t.Helper()
	s, err := Dial(context.Background(), Config{Addr: srv.Addr(), User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// parseScript parses every statement of a script, with script positions.
func parseScript(t *testing.T, script string) []sql.Stmt {
	t.Helper()
	var out []sql.Stmt
	for _, p := range sql.Statements(script) {
		st, err := sql.ParseOne(p.Text, p.Start)
		if err != nil {
			t.Fatalf("%s: %v", p.Text, err)
		}
		out = append(out, st)
	}
	return out
}

// stmtOf parses one statement.
func stmtOf(t *testing.T, text string) sql.Stmt {
	t.Helper()
	return parseScript(t, text)[0]
}

// mustRun runs statements on s, failing t on an error.
func mustRun(t *testing.T, s interface {
	Execute(context.Context, sql.Stmt) (*engine.Result, error)
}, script string) []*engine.Result {
	t.Helper()
	var out []*engine.Result
	for _, st := range parseScript(t, script) {
		res, err := s.Execute(context.Background(), st)
		if err != nil {
			t.Fatalf("%s: %v", st.Source().Text(), err)
		}
		out = append(out, res)
	}
	return out
}

// formatRows renders rows as the shell does, one line per row.
func formatRows(cols []engine.Column, rows [][]types.Datum) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, d := range r {
			vals[j] = types.Format(d, cols[j].Type)
		}
		out[i] = strings.Join(vals, "|")
	}
	return out
}
