package sql

import (
	"strings"
	"testing"
)

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"bid": "bid", "date_time": "date_time", "_x1": "_x1", "Person": "Person",
		"select": "`select`", "FROM": "`FROM`", "key": "`key`", "primary": "`primary`", "as": "`as`",
		"odd name": "`odd name`", "1a": "`1a`", "a`b": "`a``b`", "é": "`é`", "": "``",
	} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestQuoteOptionKey(t *testing.T) {
	for in, want := range map[string]string{
		"path": "path", "table": "table", "nexmark.table": "nexmark.table", "as": "'as'", "a b": "'a b'", "a..b": "'a..b'", "it's": "'it''s'",
	} {
		if got := QuoteOptionKey(in); got != want {
			t.Errorf("QuoteOptionKey(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestQuoteStringReadsBack checks that the lexer reads every quoted string
// back as the original.
func TestQuoteStringReadsBack(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `back\slash`, "two\nlines\r\n", "tab\there", "nul\x00", `\'`, "ünïcode"} {
		q := QuoteString(s)
		r := lex(q, 0, len(q))
		if r.errMsg != "" || len(r.toks) != 2 || r.toks[0].kind != tString || r.toks[0].val != s {
			t.Errorf("QuoteString(%q) = %s reads back as %+v", s, q, r.toks)
		}
	}
}

func TestNormalizeSpace(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT  a,\n  b FROM t -- comment\n WHERE x = 'a  b'": "SELECT a, b FROM t WHERE x = 'a  b'",
		"SELECT a/*c*/FROM t":        "SELECT a FROM t",
		"SELECT `a  b` FROM t # end": "SELECT `a  b` FROM t",
		"  SELECT 1  ":               "SELECT 1",
		"SELECT 'unterminated  ":     "SELECT 'unterminated",
		"SELECT a+b, f(x) FROM t":    "SELECT a+b, f(x) FROM t",
	} {
		if got := NormalizeSpace(in); got != want {
			t.Errorf("NormalizeSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWindowFunctions checks that every window table function the parser
// knows is listed, with as many interval arguments as it takes.
func TestWindowFunctions(t *testing.T) {
	fns := WindowFunctions()
	if len(fns) != len(windowKinds) {
		t.Fatalf("%d window functions listed, the parser knows %d", len(fns), len(windowKinds))
	}
	for _, f := range fns {
		k, ok := windowKinds[f.Name]
		if !ok || strings.Count(f.Signature, "INTERVAL") != len(tvfSigs[k].intervals) {
			t.Errorf("%s: %s", f.Name, f.Signature)
		}
	}
}
