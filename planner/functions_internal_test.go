package planner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// TestSpecialFormsMatchBindFunc reads bindFunc's switch and checks that
// every function it binds itself is listed by Functions, as a special form
// or from the registry, and that every special form is one of its cases:
// adding a case without listing it, or listing one that does not bind,
// fails here.
func TestSpecialFormsMatchBindFunc(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "funcs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The cases written as constants: eddy's rewritten calls have their
	// SQL names; TiDB's literal forms (DATE '...') are no functions.
	consts := map[string]string{"sql.CastFunc": "cast", "sql.ExtractFunc": "extract",
		"ast.DateLiteral": "", "ast.TimestampLiteral": "", "ast.TimeLiteral": ""}
	cases := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "bindFunc" {
			continue
		}
		for _, st := range fd.Body.List {
			sw, ok := st.(*ast.SwitchStmt)
			if !ok {
				continue
			}
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					switch e := e.(type) {
					case *ast.BasicLit:
						s, _ := strconv.Unquote(e.Value)
						cases[s] = true
					case *ast.SelectorExpr:
						name, known := consts[e.X.(*ast.Ident).Name+"."+e.Sel.Name]
						if !known {
							t.Errorf("bindFunc case %s.%s: add it to this test's constants", e.X.(*ast.Ident).Name, e.Sel.Name)
						}
						if name != "" {
							cases[name] = true
						}
					default:
						t.Errorf("bindFunc case of unexpected form %T", e)
					}
				}
			}
		}
	}
	if len(cases) == 0 {
		t.Fatal("no cases found in bindFunc")
	}
	for name := range cases {
		_, builtin := plan.LookupBuiltin(name)
		if _, ok := specialForms[name]; !ok && !builtin {
			t.Errorf("bindFunc binds %s, which Functions does not list: add it to specialForms", name)
		}
	}
	for name := range specialForms {
		if !cases[name] {
			t.Errorf("specialForms lists %s, which bindFunc does not bind", name)
		}
	}
}

// TestFunctions checks the list SHOW FUNCTIONS prints: every registered
// scalar function that binds, every aggregate over groups and windows,
// ROW_NUMBER and the window table functions, each once per kind, with a
// signature naming it.
func TestFunctions(t *testing.T) {
	fns := Functions()
	seen := map[string]bool{}
	for i, f := range fns {
		key := f.Name + "/" + f.Kind.String()
		if seen[key] {
			t.Errorf("%s listed twice", key)
		}
		seen[key] = true
		if !strings.HasPrefix(f.Signature, f.Name+"(") || !strings.Contains(f.Signature, "→") {
			t.Errorf("%s: signature %q", key, f.Signature)
		}
		if i > 0 && fns[i-1].Name > f.Name {
			t.Errorf("not sorted by name: %s before %s", fns[i-1].Name, f.Name)
		}
	}
	for _, b := range plan.Builtins() {
		if seen[strings.ToUpper(b.Name)+"/scalar"] == b.Unsupported {
			t.Errorf("scalar %s listed: %v, unsupported: %v", b.Name, !b.Unsupported, b.Unsupported)
		}
	}
	for name := range aggFuncs {
		if !seen[strings.ToUpper(name)+"/aggregate"] || !seen[strings.ToUpper(name)+"/window"] {
			t.Errorf("aggregate %s is not listed as an aggregate and a window function", name)
		}
	}
	for name := range groupOnlyAggs {
		if !seen[strings.ToUpper(name)+"/aggregate"] || seen[strings.ToUpper(name)+"/window"] {
			t.Errorf("%s is an aggregate over groups only", name)
		}
	}
	for name := range sql.ScaledAggregates {
		if !seen[strings.ToUpper(name)+"/aggregate"] || seen[strings.ToUpper(name)+"/window"] {
			t.Errorf("%s is not listed as an aggregate over groups only", name)
		}
	}
	for _, w := range sql.WindowFunctions() {
		if !seen[w.Name+"/table"] {
			t.Errorf("window table function %s is not listed", w.Name)
		}
	}
	for _, want := range []string{"ROW_NUMBER/window", "CAST/scalar", "DATE_ADD/scalar", "NOW/scalar", "TUMBLE/table", "APPROX_COUNT_DISTINCT/aggregate"} {
		if !seen[want] {
			t.Errorf("%s is not listed", want)
		}
	}
	if seen["CURDATE/scalar"] {
		t.Errorf("CURDATE, which never binds, is listed")
	}
}
