package sql

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// goldenInputs returns the inputs of the parse goldens, to seed the fuzzer.
func goldenInputs(t testing.TB) []string {
	files, err := filepath.Glob("testdata/parse/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			if !strings.HasPrefix(lines[i], "parse") {
				continue
			}
			var in []string
			for i++; i < len(lines) && lines[i] != "----"; i++ {
				in = append(in, lines[i])
			}
			out = append(out, strings.Join(in, "\n"))
		}
	}
	return out
}

// FuzzParse checks that Parse, Split and ParseOne never panic, that every
// error is a *ParseError positioned inside the text, and that every
// position in a parsed statement lies inside the text.
func FuzzParse(f *testing.F) {
	for _, s := range goldenInputs(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := Parse(text)
		checkResult(t, text, stmts, err)
		pieces, rest := Split(text)
		if !strings.HasSuffix(text, rest) {
			t.Fatalf("rest %q is not a suffix", rest)
		}
		for _, p := range pieces {
			if p.Start.Offset < 0 || p.Start.Offset+len(p.Text) > len(text) || text[p.Start.Offset:p.Start.Offset+len(p.Text)] != p.Text {
				t.Fatalf("piece %q not at %+v", p.Text, p.Start)
			}
			s, err := ParseOne(p.Text, p.Start)
			var list []Stmt
			if s != nil {
				list = append(list, s)
			}
			checkResult(t, text, list, err)
		}
	})
}

func checkResult(t *testing.T, text string, stmts []Stmt, err error) {
	inside := func(what string, p Pos) {
		if p.Offset < 0 || p.Offset > len(text) || p.Line < 1 || p.Col < 1 {
			t.Fatalf("%s position %+v outside the text (%d bytes)", what, p, len(text))
		}
		line := 1 + strings.Count(text[:p.Offset], "\n")
		col := p.Offset - strings.LastIndex(text[:p.Offset], "\n")
		if p.Line != line || p.Col != col {
			t.Fatalf("%s position %+v, but its offset is at %d:%d", what, p, line, col)
		}
	}
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %v is not a *ParseError", err, err)
		}
		inside("error", pe.Pos)
		if strings.Contains(pe.Msg, "internal parser error") {
			t.Fatalf("recovered panic: %v", pe)
		}
		_ = pe.Snippet()
		if strings.Contains(pe.Error(), "\n") {
			t.Fatalf("multi-line error %q", pe.Error())
		}
	}
	for _, s := range stmts {
		src := s.Source()
		pr := &printer{}
		pr.stmt(s, 0)
		for _, c := range pr.checks {
			t.Fatalf("%s in %q", c, src.Text())
		}
		for _, n := range tidbNodes(s) {
			inspect(n, func(n ast.Node) {
				if e, ok := n.(ast.ExprNode); ok {
					inside("expression", src.Pos(e.OriginTextPosition()))
				}
			})
		}
	}
}

// tidbNodes returns the TiDB trees of a statement.
func tidbNodes(s Stmt) []ast.Node {
	var out []ast.Node
	addQuery := func(q *Query) {
		if q != nil && q.Select != nil {
			out = append(out, q.Select)
		}
	}
	switch s := s.(type) {
	case *CreateStream:
		if s.Watermark != nil {
			out = append(out, s.Watermark.Expr)
		}
		addQuery(s.Query)
	case *CreateTable:
		if s.Watermark != nil {
			out = append(out, s.Watermark.Expr)
		}
	case *CreateView:
		addQuery(s.Query)
	case *CreateSink:
		addQuery(s.Query)
	case *Insert:
		for _, r := range s.Rows {
			for _, e := range r {
				out = append(out, e)
			}
		}
		addQuery(s.Query)
	case *Select:
		addQuery(s.Query)
	case *Explain:
		if s.Stmt != nil {
			out = append(out, tidbNodes(s.Stmt)...)
		}
	}
	return out
}
