package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// columnPos returns the script positions of the column references named
// name in a TiDB tree.
func columnPos(src *Source, n ast.Node, name string) []Pos {
	var out []Pos
	inspect(n, func(n ast.Node) {
		if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Name.L == name {
			out = append(out, src.Pos(c.OriginTextPosition()))
		}
	})
	return out
}

// posOf returns the script position of the n-th occurrence of sub in text.
func posOf(t *testing.T, text, sub string, n int) Pos {
	t.Helper()
	k := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(text[k+1:], sub)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", sub, n+1)
		}
		k += 1 + j
	}
	line := 1 + strings.Count(text[:k], "\n")
	col := k - strings.LastIndex(text[:k], "\n")
	return Pos{Offset: k, Line: line, Col: col}
}

func TestSourcePosAcrossRewrites(t *testing.T) {
	text := "CREATE MATERIALIZED VIEW v AS\n" +
		"SELECT CAST(CAST(price AS VARCHAR) AS BIGINT) AS p,\n" +
		"       CAST(qty AS DECIMAL(10, 2)) + after1 AS q, -- CAST(x AS INT) in a comment\n" +
		"       w.window_start, after2\n" +
		"FROM TUMBLE(bid, date_time, INTERVAL '10' SECONDS) AS w\n" +
		"WHERE CAST(ts AS TIMESTAMP(3)) > ts - INTERVAL '500' MILLISECONDS\n" +
		"  AND after3 = 'CAST(y AS INT)' EMIT ON WINDOW CLOSE"
	stmts, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	v := stmts[0].(*CreateView)
	src := v.Source()
	for _, tc := range []struct {
		col  string
		want Pos
	}{
		{"price", posOf(t, text, "price", 0)},
		{"qty", posOf(t, text, "qty", 0)},
		{"after1", posOf(t, text, "after1", 0)},
		{"window_start", posOf(t, text, "w.window_start", 0)},
		{"after2", posOf(t, text, "after2", 0)},
		{"ts", posOf(t, text, "ts ", 0)},
		{"after3", posOf(t, text, "after3", 0)},
	} {
		got := columnPos(src, v.Query.Select, tc.col)
		if len(got) == 0 || got[0] != tc.want {
			t.Errorf("%s at %+v, want %+v", tc.col, got, tc.want)
		}
	}
	if got := columnPos(src, v.Query.Select, "ts"); len(got) != 2 || got[1] != posOf(t, text, "ts - ", 0) {
		t.Errorf("second ts at %+v", got)
	}
	// Every function call made by a rewrite maps to what it replaced.
	var casts []Pos
	inspect(v.Query.Select, func(n ast.Node) {
		if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == CastFunc {
			casts = append(casts, src.Pos(f.OriginTextPosition()))
		}
	})
	want := []Pos{posOf(t, text, "CAST", 0), posOf(t, text, "CAST", 1), posOf(t, text, "CAST", 2), posOf(t, text, "CAST", 4)}
	if len(casts) != len(want) {
		t.Fatalf("casts at %+v, want %+v", casts, want)
	}
	for i := range want {
		if casts[i] != want[i] {
			t.Errorf("cast %d at %+v, want %+v", i, casts[i], want[i])
		}
	}
	if len(src.TiDBText()) == 0 || strings.Contains(src.TiDBText(), "TUMBLE") || strings.Contains(src.TiDBText(), "EMIT") {
		t.Errorf("TiDB text %q", src.TiDBText())
	}
}

func TestSourceText(t *testing.T) {
	text := "  -- lead\n  SELECT a FROM t -- tail\n ; "
	pieces, _ := Split(text)
	s, err := ParseOne(pieces[0].Text, pieces[0].Start)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Source().Text(); got != "SELECT a FROM t" {
		t.Errorf("Text() = %q", got)
	}
	if s.(*Select).Query.Text != "SELECT a FROM t" {
		t.Errorf("Query.Text = %q", s.(*Select).Query.Text)
	}
	if got, want := s.Source().Start(), (Pos{Offset: 12, Line: 2, Col: 3}); got != want || got != s.(*Select).Start {
		t.Errorf("Start() = %+v, want %+v (the statement's Start, %+v)", got, want, s.(*Select).Start)
	}
}

func TestIdentPos(t *testing.T) {
	text := "SELECT bid.a FROM `Bid` JOIN x ON bid.a = x.b WHERE `bid`.c > 0"
	s, err := ParseOne(text, Pos{})
	if err != nil {
		t.Fatal(err)
	}
	src := s.Source()
	start := s.(*Select).Query.Pos
	for _, tc := range []struct {
		name string
		from Pos
		want Pos
		ok   bool
	}{
		{"bid", start, posOf(t, text, "bid", 0), true},
		{"BID", posOf(t, text, "FROM", 0), posOf(t, text, "`Bid`", 0), true},
		{"bid", posOf(t, text, "JOIN", 0), posOf(t, text, "bid", 1), true},
		{"bid", posOf(t, text, "WHERE", 0), posOf(t, text, "`bid`", 0), true},
		{"x", start, posOf(t, text, "x", 0), true},
		{"nope", start, Pos{}, false},
		{"a", posOf(t, text, "c > 0", 0), Pos{}, false},
	} {
		got, ok := src.IdentPos(tc.name, tc.from)
		if ok != tc.ok || got != tc.want {
			t.Errorf("IdentPos(%q, %+v) = %+v, %v; want %+v, %v", tc.name, tc.from, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseOneOffsets(t *testing.T) {
	// A statement that starts mid-line (after "FLUSH; ") at offset 107 of a script.
	start := Pos{Offset: 107, Line: 5, Col: 8}
	s, err := ParseOne("DESCRIBE\n  bid;", start)
	if err != nil {
		t.Fatal(err)
	}
	d := s.(*Describe)
	if d.Start != start || d.Name.Pos != (Pos{Offset: 118, Line: 6, Col: 3}) {
		t.Errorf("Start %+v, name at %+v", d.Start, d.Name.Pos)
	}
	_, err = ParseOne("SELECT = 1", start)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *ParseError", err)
	}
	if pe.Pos != (Pos{Offset: 114, Line: 5, Col: 15}) {
		t.Errorf("error at %+v", pe.Pos)
	}
	// The first line is indented so the caret lines up with the script.
	if want := "       SELECT = 1\n              ^"; pe.Snippet() != want {
		t.Errorf("Snippet() =\n%s\nwant\n%s", pe.Snippet(), want)
	}
	if got := pe.Error(); got != `syntax error at 5:15: unexpected "="` {
		t.Errorf("Error() = %q", got)
	}
	var perr PosError
	if !errors.As(err, &perr) || perr.Position() != pe.Pos {
		t.Errorf("not a PosError")
	}
}

func TestParseOneEdges(t *testing.T) {
	for _, tc := range []struct{ text, msg string }{
		{"", "syntax error at 1:1: empty statement"},
		{"  -- nothing\n", "syntax error at 2:1: empty statement"},
		{";", "syntax error at 1:1: empty statement"},
		{"SELECT 1; SELECT 2", `syntax error at 1:11: unexpected "SELECT" after ';': one statement expected`},
	} {
		_, err := ParseOne(tc.text, Pos{})
		if err == nil || err.Error() != tc.msg {
			t.Errorf("ParseOne(%q) = %v, want %s", tc.text, err, tc.msg)
		}
	}
	if s, err := ParseOne("FLUSH ;", Pos{}); err != nil || s.Source().Text() != "FLUSH" {
		t.Errorf("ParseOne(FLUSH ;) = %v, %v", s, err)
	}
}

func TestLineEndings(t *testing.T) {
	_, err := Parse("SELECT a,\r\n  b FROM t WHERE = 1\r\n")
	pe := err.(*ParseError)
	if pe.Pos.Line != 2 || pe.Pos.Col != 18 || pe.Line != "  b FROM t WHERE = 1" {
		t.Errorf("error %+v on %q", pe.Pos, pe.Line)
	}
}

func TestSnippet(t *testing.T) {
	for _, tc := range []struct {
		line string
		col  int
		want string
	}{
		{"SELECT a FORM t", 15, "SELECT a FORM t\n              ^"},
		{"\tSELECT\tx", 9, "\tSELECT\tx\n\t      \t^"},
		{"ab", 10, "ab\n  ^"},
		{"ab", 0, "ab\n^"},
		{"", 1, "\n^"},
		{"'héllo' x", 10, "'héllo' x\n        ^"},
		{"abc\r\n", 2, "abc\n ^"},
		// A line longer than snippetWidth is cut around the column.
		{strings.Repeat("a", 100) + " X " + strings.Repeat("b", 200), 102,
			"..." + strings.Repeat("a", 79) + " X " + strings.Repeat("b", 78) + "...\n" + strings.Repeat(" ", 83) + "^"},
		{"X " + strings.Repeat("b", 300), 1, "X " + strings.Repeat("b", 158) + "...\n^"},
		{strings.Repeat("b", 300) + " X", 302, "..." + strings.Repeat("b", 158) + " X\n" + strings.Repeat(" ", 162) + "^"},
		{strings.Repeat("é", 200) + "X", 401, "..." + strings.Repeat("é", 79) + "X\n" + strings.Repeat(" ", 82) + "^"},
	} {
		if got := Snippet(tc.line, tc.col); got != tc.want {
			t.Errorf("Snippet(%q, %d) =\n%s\nwant\n%s", tc.line, tc.col, got, tc.want)
		}
	}
}

func TestFullJoin(t *testing.T) {
	s, err := ParseOne("SELECT * FROM a FULL JOIN b ON a.x = b.x LEFT JOIN c ON c.y = a.y FULL OUTER JOIN (SELECT * FROM d) e ON e.z = a.z", Pos{})
	if err != nil {
		t.Fatal(err)
	}
	q := s.(*Select).Query
	var joins []*ast.Join
	inspect(q.Select, func(n ast.Node) {
		if j, ok := n.(*ast.Join); ok && j.Right != nil {
			joins = append(joins, j)
		}
	})
	// TiDB nests the joins left-deep: the outermost (last written) first.
	if len(joins) != 3 {
		t.Fatalf("%d joins", len(joins))
	}
	if !q.IsFullJoin(joins[0]) || q.IsFullJoin(joins[1]) || !q.IsFullJoin(joins[2]) || len(q.FullJoins) != 2 {
		t.Errorf("full joins %v of %v", q.FullJoins, joins)
	}
}

// TestFullJoinFunctionFrom checks FULL JOINs whose right side's select list
// has a FROM inside a function call (EXTRACT, TRIM, SUBSTRING): the word
// after that FROM is no table name, and the FULL JOIN is found by the
// table that starts its right side. EXTRACT used to skip its parenthesis,
// so the select list's later columns were taken for tables.
func TestFullJoinFunctionFrom(t *testing.T) {
	for _, text := range []string{
		"SELECT a.k FROM t1 AS a FULL JOIN (SELECT EXTRACT(SECOND FROM b.ts) AS e, b.k AS k FROM s1 AS b) AS d ON a.k = d.k",
		"SELECT a.k FROM t1 AS a FULL JOIN (SELECT TRIM(LEADING 'x' FROM b.g) AS e, b.k AS k FROM s1 AS b) AS d ON a.k = d.k",
		"SELECT a.k FROM t1 AS a FULL JOIN (SELECT SUBSTRING(b.g FROM 2) AS e, b.k AS k FROM s1 AS b) AS d ON a.k = d.k",
		"SELECT EXTRACT(SECOND FROM a.ts) AS e, a.k FROM t1 AS a FULL JOIN s1 AS b ON a.k = b.k",
	} {
		s, err := ParseOne(text, Pos{})
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if q := s.(*Select).Query; len(q.FullJoins) != 1 {
			t.Errorf("%s: %d full joins, want 1", text, len(q.FullJoins))
		}
	}
}

// TestLongStatementError checks errors past the 2048 bytes of text TiDB
// quotes in its messages.
func TestLongStatementError(t *testing.T) {
	text := "SELECT a" + strings.Repeat(",\n  CAST(a AS BIGINT)", 400) + "\nFROM t WHERE = 1" + strings.Repeat(" AND b", 500)
	_, err := Parse(text)
	pe, ok := err.(*ParseError)
	if !ok {
		t.Fatalf("error %v", err)
	}
	if want := posOf(t, text, "= 1", 0); pe.Pos != want || pe.Msg != `unexpected "="` {
		t.Errorf("error %v at %+v, want %+v", pe, pe.Pos, want)
	}
	if !strings.HasPrefix(pe.Line, "FROM t WHERE = 1 AND b") {
		t.Errorf("line %.40q", pe.Line)
	}
}
