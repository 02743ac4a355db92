package cli

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeNames is a nameSource with fixed names that counts its calls.
type fakeNames struct {
	n     catalogNames
	calls int
	err   error
}

func (f *fakeNames) names(context.Context) (catalogNames, error) {
	f.calls++
	return f.n, f.err
}

func testNames() *fakeNames {
	return &fakeNames{n: catalogNames{
		Objects: []catalogObject{
			{Name: "bid", Kind: "stream", Columns: []string{"auction", "price", "date_time"}},
			{Name: "person", Kind: "table", Columns: []string{"id", "name", "city"}},
			{Name: "per_auction", Kind: "materialized view", Columns: []string{"auction", "n"}},
			{Name: "odd name", Kind: "stream", Columns: []string{"a b"}},
			{Name: "k", Kind: "sink", Columns: []string{"auction"}},
		},
		Functions: []string{"COUNT", "COALESCE", "CONCAT", "NOW", "TUMBLE"},
	}}
}

// TestCompletion runs the completer over lines (| marks the cursor) and
// checks the candidates.
func TestCompletion(t *testing.T) {
	for _, tt := range []struct {
		before, line string
		want         []string
	}{
		// The start of a statement: statement keywords, in the case typed.
		{"", "sel|", []string{"select "}},
		{"", "S|", []string{"SELECT", "SET", "SHOW"}},
		{"", "DESC|", []string{"DESC", "DESCRIBE"}},
		// Object names where objects go, in the kind the statement wants.
		{"", "SELECT * FROM p|", []string{"per_auction", "person"}},
		{"", "select * from bid join pe|", []string{"per_auction", "person"}},
		{"", "DESCRIBE |", []string{"bid", "k", "`odd name`", "per_auction", "person"}},
		{"", "INSERT INTO |", []string{"bid", "`odd name`", "person"}},
		{"", "DROP STREAM |", []string{"bid", "`odd name`"}},
		{"", "DROP MATERIALIZED VIEW IF EXISTS |", []string{"per_auction "}},
		{"", "DROP |", []string{"MATERIALIZED", "SINK", "STREAM", "TABLE"}},
		{"", "SHOW CREATE SINK |", []string{"k "}},
		{"", "SHOW CREATE b|", []string{"bid "}},
		{"", "SHOW |", []string{"CHECKPOINTS", "CREATE", "FUNCTIONS", "MATERIALIZED", "QUERIES", "SINKS", "STREAMS", "TABLES"}},
		{"", "show mat|", []string{"materialized "}},
		{"", "SELECT * FROM TUMBLE(|", []string{"TABLE", "bid", "k", "`odd name`", "per_auction", "person"}},
		{"", "SELECT * FROM TUMBLE(TABLE b|", []string{"bid "}},
		{"", "SELECT * FROM `od|", []string{"`odd name` "}},
		// Columns of the objects the statement names, with keywords and
		// functions; all columns when it names none yet.
		{"", "SELECT * FROM person WHERE ci|", []string{"city "}},
		{"", "SELECT C|", []string{"CASCADE", "CASE", "CHANGES", "CHECKPOINTS", "city", "CLOSE", "COALESCE(", "CONCAT(", "COUNT(", "CROSS", "CURRENT"}},
		{"", "select coa|", []string{"coalesce("}},
		{"", "SELECT A|", []string{"`a b`", "ALL", "AND", "ANY", "AS", "ASC", "auction"}},
		{"SELECT auction,\n", "  pr|", []string{"preceding", "price", "primary"}},
		{"SELECT auction,\n", "  pr| FROM bid", []string{"preceding", "price", "primary"}},
		// A qualifier: the columns of that object, or of the alias's.
		{"", "SELECT person.|", []string{"city", "id", "name"}},
		{"", "SELECT p.n| FROM person p", []string{"name "}},
		{"", "SELECT b.| FROM bid AS b JOIN person p ON b.auction = p.id", []string{"auction", "date_time", "price"}},
		// The earlier lines of the statement count; an earlier statement
		// does not.
		{"SELECT *\nFROM bid\n", "WHERE pri|", []string{"price", "primary"}},
		{"SHOW STREAMS;\n", "SEL|", []string{"SELECT "}},
		// Settings after SET.
		{"", "SET par|", []string{"parallelism "}},
		{"", "set state|", []string{"state_ttl "}},
		// EXTRACT(unit FROM col) takes a column.
		{"", "SELECT EXTRACT(DAY FROM da| FROM bid", []string{"date_time "}},
		// Nothing inside a string.
		{"", "SELECT 'FR|", nil},
		{"SELECT 'a\n", "FR|", nil},
		// Meta commands and their arguments.
		{"", `\|`, metaCommands},
		{"", `\ti|`, []string{`\timing `}},
		{"", `\x |`, []string{"auto", "off", "on"}},
		{"", `\d pe|`, []string{"per_auction", "person"}},
		{"", `\format c|`, []string{"csv "}},
	} {
		pos := strings.IndexByte(tt.line, '|')
		line := tt.line[:pos] + tt.line[pos+1:]
		c := newCompleter(testNames())
		head, got, tail := c.complete(tt.before, line, pos)
		if len(head) > pos || head != line[:len(head)] || tail != line[pos:] {
			t.Errorf("%q: head %q, tail %q", tt.line, head, tail)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q after %q: got %q\nwant %q", tt.line, tt.before, got, tt.want)
		}
	}
}

// TestCompletionRefreshesAfterStatements checks that the names are asked
// once until a statement runs, and that a failing source leaves the old
// names.
func TestCompletionRefreshesAfterStatements(t *testing.T) {
	src := testNames()
	c := newCompleter(src)
	c.complete("", "SELECT * FROM b", 15)
	c.complete("", "SELECT * FROM p", 15)
	if src.calls != 1 {
		t.Fatalf("names asked %d times, want 1", src.calls)
	}
	c.invalidate()
	src.err = errors.New("gone")
	if _, got, _ := c.complete("", "SELECT * FROM b", 15); !slices.Equal(got, []string{"bid "}) || src.calls != 2 {
		t.Errorf("after a failed refresh: %q, %d calls", got, src.calls)
	}
}

// TestShellCompletesWithTheEngine completes on a real engine's session:
// the names come from SHOW, DESCRIBE and SHOW FUNCTIONS run on it.
func TestShellCompletesWithTheEngine(t *testing.T) {
	sh, _, _ := engineShell(t, `CREATE STREAM bid (auction BIGINT, price BIGINT);
CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;`)
	for _, tt := range []struct {
		line        string
		want, never []string
	}{
		{"SELECT * FROM pe", []string{"per_auction "}, nil},
		{"SELECT * FROM per_auction WHERE ", []string{"auction", "n", "AND", "COUNT("}, []string{"price"}},
		{"SELECT approx", []string{"approx_count_distinct("}, nil},
		{"SELECT * FROM bid WHERE pr", []string{"price", "primary"}, nil},
	} {
		_, got, _ := sh.comp.complete("", tt.line, len(tt.line))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q lacks %q", tt.line, got, w)
			}
		}
		for _, w := range tt.never {
			if slices.Contains(got, w) {
				t.Errorf("%q: %q has %q", tt.line, got, w)
			}
		}
	}
	if n := sh.cat.take(); len(n) != 0 {
		t.Errorf("notices %q", n)
	}
}
