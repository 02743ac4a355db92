package optimizer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
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
		cat, err := plantest.NewCatalog()
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
		if err := plantest.ExecDDL(cat, d.Input); err != nil {
			return "error: " + err.Error() + "\n"
		}
		return ""
	case "build", "opt", "physical", "trace":
		q, err := plantest.BindText(cat, d.Input, planner.Continuous)
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
