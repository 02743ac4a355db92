package connector_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/connector/builtin"
)

// TestNamesMatchedOnlyByConnectors fails when code outside exec/connector
// branches on a connector's name, as the engine, the catalog and the
// optimizer once did: everything a connector's name decides is asked of
// the registry (connector.Registry) or read from the catalog's
// SourceTraits. It parses every non-test Go file of the module outside
// exec/connector and reports
//
//   - a comparison (==, !=, a switch, strings.EqualFold) of a connector
//     option (x["connector"], x.Connector()) with anything but "" (which
//     asks whether there is a connector at all);
//   - a connector's name as a string literal compared with anything, as
//     a switch case, or as a key of a map literal.
func TestNamesMatchedOnlyByConnectors(t *testing.T) {
	root := moduleRoot(t)
	r := builtin.New()
	names := map[string]bool{}
	for _, n := range append(r.SourceNames(), r.SinkNames()...) {
		names[n] = true
	}
	own := filepath.Join(root, "exec", "connector") + string(filepath.Separator)
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, own) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, v := range nameMatches(t, path, names) {
			t.Errorf("%s:%s", rel, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found under %s", files, root)
	}
}

// TestNameMatchesFindsMatching checks the checker on the forms of matching
// it must find, and on what it must let pass.
func TestNameMatchesFindsMatching(t *testing.T) {
	src := `package p
func f(o *O, opts map[string]string, c string) {
	_ = o.Options["connector"] == name     // 3: a connector option compared
	_ = o.Connector() != "x"               // 4
	switch o.Connector() {
	case "", c:                            // 6: c, not ""
	}
	_ = strings.EqualFold(opts["connector"], c) // 8
	_ = c == "nexmark"                     // 9: a name compared
	switch c {
	case "a", "blackhole":                 // 11
	}
	_ = map[string]bool{"file": true}      // 13
	_ = o.Connector() == ""                // allowed: is there a connector?
	_ = opts["connector"] != ""            // allowed
	_ = map[string]string{"connector": "file"} // allowed: a value, not a match
	_ = o.Kind == "stream"                 // allowed: not a connector option or name
}`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, v := range nameMatches(t, path, map[string]bool{"file": true, "nexmark": true, "blackhole": true}) {
		n, _ := strconv.Atoi(v[:strings.Index(v, ":")])
		lines = append(lines, n)
	}
	want := []int{3, 4, 6, 8, 9, 11, 13}
	if len(lines) != len(want) {
		t.Fatalf("found on lines %v, want %v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Fatalf("found on lines %v, want %v", lines, want)
		}
	}
}

// nameMatches returns "line: what" for every match on a connector's name
// in the Go file at path.
func nameMatches(t *testing.T, path string, names map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, strconv.Itoa(fset.Position(n.Pos()).Line)+": "+what)
	}
	isName := func(e ast.Expr) bool {
		s, ok := stringLit(e)
		return ok && names[strings.ToLower(strings.TrimSpace(s))]
	}
	compared := func(n ast.Node, a, b ast.Expr) {
		switch {
		case isConnector(a) && !isEmpty(b), isConnector(b) && !isEmpty(a):
			report(n, "a connector option is compared with a name")
		case isName(a) || isName(b):
			report(n, "a connector's name is compared")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if x.Op == token.EQL || x.Op == token.NEQ {
				compared(x, x.X, x.Y)
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "EqualFold" && len(x.Args) == 2 {
				compared(x, x.Args[0], x.Args[1])
			}
		case *ast.SwitchStmt:
			if x.Tag == nil {
				break
			}
			for _, s := range x.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					compared(e, x.Tag, e)
				}
			}
		case *ast.CompositeLit:
			if _, ok := x.Type.(*ast.MapType); !ok {
				break
			}
			for _, e := range x.Elts {
				if kv, ok := e.(*ast.KeyValueExpr); ok && isName(kv.Key) {
					report(kv, "a connector's name keys a map")
				}
			}
		}
		return true
	})
	return out
}

// isConnector reports whether e reads a connector option: x["connector"]
// or x.Connector().
func isConnector(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.IndexExpr:
		s, ok := stringLit(x.Index)
		return ok && s == "connector"
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Connector" && len(x.Args) == 0
	}
	return false
}

// isEmpty reports whether e is the literal "".
func isEmpty(e ast.Expr) bool {
	s, ok := stringLit(e)
	return ok && s == ""
}

// stringLit returns the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}
