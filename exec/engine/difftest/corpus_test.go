package difftest

import (
	"strings"
	"testing"
)

// TestParseCorpus checks the corpus format: directives, comments, several
// views, and a hand-written SQLite query that ends at the next CREATE.
func TestParseCorpus(t *testing.T) {
	src := `-- A file comment.

-- entry: first
-- needs: window, join
-- What the entry checks.
CREATE MATERIALIZED VIEW a AS
  SELECT x FROM t; -- a trailing comment
-- sqlite a:
SELECT x
FROM t;
CREATE MATERIALIZED VIEW b AS SELECT COUNT(*) FROM a;

-- entry: second
CREATE MATERIALIZED VIEW c AS SELECT ';' AS semi FROM t;
`
	es, err := parseCorpus("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("got %d entries, want 2", len(es))
	}
	e := es[0]
	if e.Name != "first" || e.Line != 3 || strings.Join(e.Needs, ",") != "window,join" || e.Doc != "What the entry checks.\n" {
		t.Errorf("first entry: %+v", e)
	}
	if len(e.Stmts) != 2 || e.Stmts[0].Name != "a" || e.Stmts[0].Query != "SELECT x FROM t" ||
		e.Stmts[0].SQLite != "SELECT x\nFROM t" || e.Stmts[1].SQLite != "" || e.Stmts[1].Query != "SELECT COUNT(*) FROM a" {
		t.Errorf("first entry's statements: %+v", e.Stmts)
	}
	if got := es[1].Stmts[0].Query; got != "SELECT ';' AS semi FROM t" {
		t.Errorf("second entry's query: %q", got)
	}
	if m := e.Missing([]string{"join"}); strings.Join(m, ",") != "window" {
		t.Errorf("missing features: %v", m)
	}
}

// TestParseCorpusDML checks `-- dml N:` blocks: they hold UPDATE, DELETE
// and INSERT statements on tables, run after round N, and end at the next
// directive or CREATE line.
func TestParseCorpusDML(t *testing.T) {
	src := `-- entry: changes
-- needs: table_dml
CREATE MATERIALIZED VIEW a AS SELECT id FROM person;
-- dml 3:
DELETE FROM person WHERE id = 3;
INSERT INTO person VALUES (99, 'x', 'y', NULL, NULL, 1.00, TRUE, TIMESTAMP '2024-03-01 09:00:00');
-- dml 1:
UPDATE auction SET reserve = NULL
  WHERE id = 1001;
CREATE MATERIALIZED VIEW b AS SELECT COUNT(*) FROM a;
`
	es, err := parseCorpus("f.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	e := es[0]
	if len(e.Views()) != 2 || len(e.DML) != 3 {
		t.Fatalf("views %d, dml %+v", len(e.Views()), e.DML)
	}
	if e.DML[0].Round != 1 || e.DML[0].Text != "UPDATE auction SET reserve = NULL\n  WHERE id = 1001" ||
		e.DML[1].Round != 3 || !strings.HasPrefix(e.DML[1].Text, "DELETE") || !strings.HasPrefix(e.DML[2].Text, "INSERT") {
		t.Errorf("dml: %+v", e.DML)
	}
}

// TestParseCorpusErrors checks that mistakes in the corpus are reported
// with their place instead of silently checking less.
func TestParseCorpusErrors(t *testing.T) {
	cases := map[string]string{
		"SELECT 1;\n-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1;":         "before the first",
		"-- entry: a b\nCREATE MATERIALIZED VIEW v AS SELECT 1;":                  "not a word",
		"-- entry: a\n-- needs: windoze\nCREATE MATERIALIZED VIEW v AS SELECT 1;": "unknown feature",
		"-- entry: a\nSELECT 1;": "none of the forms",
		"-- entry: a\nCREATE STREAM s AS SELECT 1;\nCREATE MATERIALIZED VIEW v AS SELECT 1;": "needs the feature derived_stream",
		"-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1":                                "lacks its ';'",
		"-- entry: a\n": "creates no view",
		"-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- sqlite w:\nSELECT 1;":                             "does not create",
		"-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- sqlite v:\n":                                      "empty SQLite query",
		"-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- sqlite v:\nX;\n-- sqlite v:\nY":                   "a second SQLite query",
		"-- entry: a\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- dml 1:\nDELETE FROM person;":                      "needs the feature table_dml",
		"-- entry: a\n-- needs: table_dml\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- dml 9:\nDELETE FROM person;": "not one of",
		"-- entry: a\n-- needs: table_dml\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- dml 1:\nDELETE FROM bid;":    "is not UPDATE",
		"-- entry: a\n-- needs: table_dml\nCREATE MATERIALIZED VIEW v AS SELECT 1;\n-- dml 1:\n":                    "empty dml block",
	}
	for src, want := range cases {
		_, err := parseCorpus("f.sql", src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got error %v, want one with %q", src, err, want)
		}
	}
}
