package engine

import (
	"errors"
	"testing"

	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/sql"
)

// TestRowErrorsShowTheirSnippet checks that a pull query whose expression
// fails at run time returns an error front ends print as a positioned one:
// the expression's position and the line with a caret under it, still a
// RowError underneath.
func TestRowErrorsShowTheirSnippet(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, "CREATE STREAM t (s VARCHAR);\nINSERT INTO t VALUES ('abc');\n")
	_, err := execOne(t, s, "SELECT s,\n  CAST(s AS BIGINT) FROM t;")
	var pe sql.PosError
	var re *expr.RowError
	if !errors.As(err, &pe) || !errors.As(err, &re) {
		t.Fatalf("error %v (%T) is not a positioned RowError", err, err)
	}
	if p := pe.Position(); p.Line != 2 || p.Col != 3 {
		t.Errorf("position %d:%d, want 2:3", p.Line, p.Col)
	}
	if want := "  CAST(s AS BIGINT) FROM t;\n  ^"; pe.Snippet() != want {
		t.Errorf("snippet %q, want %q", pe.Snippet(), want)
	}
}
