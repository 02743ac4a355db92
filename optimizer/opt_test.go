package optimizer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
	"github.com/eddysql/eddy/storage/mem"
)

// TestRules runs the golden files of testdata/rules. Commands:
//
//	exec-ddl                      CREATE STREAM / TABLE / MATERIALIZED VIEW statements
//	build                         the bound logical plan
//	opt [expect=R,..] [expect-not=R,..] [disable=R,..]
//	                              the plan after the rule phases; fails unless
//	                              every expected rule fired and no expect-not rule did
//	physical [parallelism=N]      the physical plan, as EXPLAIN prints it
//	trace                         the rules that fired, with before and after
//
// Every optimization in these tests checks the plan's invariants after each
// rule application. Regenerate with `go test ./optimizer -rewrite`.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		cat, err := catalog.Open(mem.New().KV())
		if err != nil {
			t.Fatal(err)
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return runCommand(t, cat, d)
		})
	})
}

func runCommand(t *testing.T, cat *catalog.Catalog, d *datadriven.TestData) string {
	switch d.Cmd {
	case "exec-ddl":
		stmts, err := sql.Parse(d.Input)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		for _, st := range stmts {
			if err := execDDL(cat, st); err != nil {
				return "error: " + err.Error() + "\n"
			}
		}
		return ""
	case "build", "opt", "physical", "trace":
		q, err := bind(cat, d.Input, planner.Continuous)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		if d.Cmd == "build" {
			return plan.Format(q.Md, q.Root)
		}
		opts := optimizer.Options{CheckInvariants: true, Disabled: map[string]bool{}}
		var expect, expectNot []string
		parallelism := 1
		for _, arg := range d.CmdArgs {
			switch arg.Key {
			case "disable":
				for _, v := range arg.Vals {
					opts.Disabled[v] = true
				}
			case "expect":
				expect = arg.Vals
			case "expect-not":
				expectNot = arg.Vals
			case "parallelism":
				fmt.Sscan(arg.Vals[0], &parallelism)
			default:
				d.Fatalf(t, "unknown argument %s", arg.Key)
			}
		}
		known := map[string]bool{}
		for _, n := range optimizer.RuleNames() {
			known[n] = true
		}
		for _, r := range append(append([]string(nil), expect...), expectNot...) {
			if !known[r] {
				d.Fatalf(t, "unknown rule %s", r)
			}
		}
		out, tr, err := optimizer.Normalize(&rules.Context{Md: q.Md, Fold: expr.EvalConst}, q.Root, opts)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		for _, r := range expect {
			if !tr.Fired(r) {
				d.Fatalf(t, "expected rule %s to fire; it did not", r)
			}
		}
		for _, r := range expectNot {
			if tr.Fired(r) {
				d.Fatalf(t, "expected rule %s not to fire; it did", r)
			}
		}
		switch d.Cmd {
		case "opt":
			return plan.Format(q.Md, out)
		case "trace":
			var b strings.Builder
			for _, s := range tr.Steps {
				fmt.Fprintf(&b, "%s/%s\n  before: %s\n  after:  %s\n", s.Phase, s.Rule, s.Before, s.After)
			}
			return b.String()
		}
		p, err := physical.Build(q.Md, out, physical.Options{Parallelism: parallelism})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return physical.Format(p)
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}

// bind parses and binds one query.
func bind(cat *catalog.Catalog, text string, mode planner.Mode) (*planner.Query, error) {
	st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
	if err != nil {
		return nil, err
	}
	var q *sql.Query
	switch x := st.(type) {
	case *sql.Select:
		q = x.Query
	case *sql.CreateView:
		q = x.Query
	default:
		return nil, fmt.Errorf("not a query: %T", st)
	}
	b := planner.NewBuilder(cat, st.Source(), sql.Pos{Line: 1, Col: 1})
	b.Fold = expr.EvalConst
	return b.BuildQuery(q, mode)
}

// execDDL creates catalog objects for tests (views are bound, not run).
func execDDL(cat *catalog.Catalog, st sql.Stmt) error {
	switch x := st.(type) {
	case *sql.CreateStream, *sql.CreateTable:
		var defs []sql.ColumnDef
		var name string
		var pk []sql.Ident
		kind := catalog.Stream
		opts := map[string]string{}
		if s, ok := x.(*sql.CreateStream); ok {
			defs, name = s.Columns, s.Name.Name
			for _, o := range s.With {
				opts[o.Key] = o.Value
			}
		} else {
			s := x.(*sql.CreateTable)
			defs, name, pk, kind = s.Columns, s.Name.Name, s.PrimaryKey, catalog.Table
		}
		obj := &catalog.Object{Name: name, Kind: kind, Options: opts}
		for _, d := range defs {
			t, err := types.FromName(d.Type.Name, d.Type.Args)
			if err != nil {
				return err
			}
			obj.Columns = append(obj.Columns, catalog.Column{Name: d.Name.Name, Type: t, Nullable: !d.NotNull})
		}
		for _, k := range pk {
			obj.PrimaryKey = append(obj.PrimaryKey, obj.ColumnIndex(k.Name))
		}
		return cat.Create(obj)
	case *sql.CreateView:
		b := planner.NewBuilder(cat, x.Source(), sql.Pos{Line: 1, Col: 1})
		b.Fold = expr.EvalConst
		q, err := b.BuildQuery(x.Query, planner.Continuous)
		if err != nil {
			return err
		}
		obj := &catalog.Object{Name: x.Name.Name, Kind: catalog.View, Query: x.Query.Text, DependsOn: q.Deps}
		for i, n := range q.Names {
			obj.Columns = append(obj.Columns, catalog.Column{Name: n, Type: q.Types()[i], Nullable: true})
		}
		return cat.Create(obj)
	}
	return fmt.Errorf("exec-ddl: unsupported statement %T", st)
}
