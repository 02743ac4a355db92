package sql

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestIdentifierLength checks that every kind of identifier longer than
// MaxIdentLen characters is refused with a ParseError at the identifier,
// that one of exactly MaxIdentLen is accepted, and that the message and
// snippet stay short however long the identifier is.
func TestIdentifierLength(t *testing.T) {
	long := strings.Repeat("a", MaxIdentLen+1)
	ok := strings.Repeat("b", MaxIdentLen)
	multi := strings.Repeat("é", MaxIdentLen) // 256 characters, 512 bytes
	huge := strings.Repeat("c", 1<<20)
	cases := []struct {
		name, sql string
		bad       string // the identifier the error must point at; "" = no error
	}{
		{"stream", "CREATE STREAM " + long + " (x BIGINT)", long},
		{"table", "CREATE TABLE " + long + " (x BIGINT PRIMARY KEY)", long},
		{"view", "CREATE MATERIALIZED VIEW " + long + " AS SELECT 1", long},
		{"sink", "CREATE SINK " + long + " FROM v WITH (connector = 'blackhole')", long},
		{"column definition", "CREATE STREAM s (x BIGINT, " + long + " VARCHAR)", long},
		{"quoted column", "CREATE STREAM s (`" + long + "` BIGINT)", long},
		{"column reference", "SELECT " + long + " FROM t", long},
		{"qualified column", "SELECT t." + long + " FROM t", long},
		{"column alias", "SELECT x AS " + long + " FROM t", long},
		{"table alias", "SELECT 1 FROM t AS " + long, long},
		{"table in FROM", "SELECT 1 FROM " + long, long},
		{"derived column list", "SELECT 1 FROM (SELECT 1) AS d(" + long + ")", long},
		{"drop", "DROP STREAM " + long, long},
		{"describe", "DESCRIBE " + long, long},
		{"insert column", "INSERT INTO s (" + long + ") VALUES (1)", long},
		{"option key", "CREATE STREAM s (x BIGINT) WITH (" + long + " = 'v')", long},
		{"megabyte", "CREATE STREAM " + huge + " (x BIGINT)", huge},
		{"at the limit", "CREATE STREAM " + ok + " (" + ok + " BIGINT)", ""},
		{"multi-byte at the limit", "SELECT x AS `" + multi + "` FROM t", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := "-- a comment line\n  " + tc.sql
			_, err := Parse(text)
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			at := strings.Index(text, tc.bad)
			if text[at-1] == '`' {
				at--
			}
			wantCol := at - strings.Index(text, "\n")
			if pe.Pos.Line != 2 || pe.Pos.Col != wantCol {
				t.Errorf("error at %d:%d, want 2:%d: %v", pe.Pos.Line, pe.Pos.Col, wantCol, err)
			}
			want := fmt.Sprintf("identifier is too long: %d characters (at most %d)", len(tc.bad), MaxIdentLen)
			if pe.Msg != want {
				t.Errorf("message %q, want %q", pe.Msg, want)
			}
			if n := len(err.Error()) + len(pe.Snippet()); n > 400 {
				t.Errorf("message and snippet are %d bytes", n)
			}
		})
	}
}
