package rules_test

import (
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// TestSnapshotRules runs the golden files of testdata/snapshot: rule cases
// that only pull queries have (a Sort exists only there), which the
// continuous-query goldens of optimizer/testdata/rules cannot bind.
// Commands:
//
//	exec-ddl                              CREATE STREAM / TABLE statements
//	build                                 the bound logical plan of a pull query
//	opt [expect=R,..] [expect-not=R,..]   the plan after the rule phases, with
//	                                      invariants checked after every rule
//
// Regenerate with `go test ./optimizer/rules -rewrite`.
func TestSnapshotRules(t *testing.T) {
	datadriven.Walk(t, "testdata/snapshot", func(t *testing.T, path string) {
		cat, err := plantest.NewCatalog()
		if err != nil {
			t.Fatal(err)
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "exec-ddl":
				if err := plantest.ExecDDL(cat, d.Input); err != nil {
					return "error: " + err.Error() + "\n"
				}
				return ""
			case "build", "opt":
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			q, err := plantest.BindText(cat, d.Input, planner.Snapshot)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			if d.Cmd == "build" {
				return plan.Format(q.Md, q.Root)
			}
			var expect, expectNot []string
			for _, arg := range d.CmdArgs {
				switch arg.Key {
				case "expect":
					expect = arg.Vals
				case "expect-not":
					expectNot = arg.Vals
				default:
					d.Fatalf(t, "unknown argument %s", arg.Key)
				}
			}
			out, tr, err := optimizer.Normalize(&rules.Context{Md: q.Md, Fold: expr.EvalConst}, q.Root,
				optimizer.Options{CheckInvariants: true})
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
			return plan.Format(q.Md, out)
		})
	})
}
