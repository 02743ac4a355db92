package optimizer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/cost"
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
//	opt [expect=R,..] [expect-not=R,..] [disable=R,..] [optional-off]
//	                              the plan after the rule phases; fails unless
//	                              every expected rule fired and no expect-not rule did;
//	                              optional-off disables every optional rule
//	                              (SET optimizer = off)
//	physical [parallelism=N]      the physical plan, as EXPLAIN prints it
//	trace                         the rules that fired, with before and after
//	decisions                     the cost-based decisions, with alternatives
//	stats name [rows=N] [rate=R] [distinct=(c:N,...)]
//	                              statistics the cost model sees for name
//
// Every optimization in these tests checks the plan's invariants after each
// rule application. Regenerate with `go test ./optimizer -rewrite`.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		cat, err := plantest.NewCatalog()
		if err != nil {
			t.Fatal(err)
		}
		stats := map[string]cost.TableStats{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd == "stats" {
				return setStats(t, d, stats)
			}
			return runCommand(t, cat, stats, d)
		})
	})
}

// setStats records statistics for the cost model.
func setStats(t *testing.T, d *datadriven.TestData, stats map[string]cost.TableStats) string {
	if len(d.CmdArgs) == 0 {
		d.Fatalf(t, "stats needs a name")
	}
	s := cost.TableStats{Distinct: map[string]float64{}}
	for _, arg := range d.CmdArgs[1:] {
		switch arg.Key {
		case "rows":
			fmt.Sscan(arg.Vals[0], &s.Rows)
		case "rate":
			fmt.Sscan(arg.Vals[0], &s.RowsPerSec)
		case "distinct":
			for _, v := range arg.Vals {
				var n float64
				col, num, _ := strings.Cut(v, ":")
				fmt.Sscan(num, &n)
				s.Distinct[strings.ToLower(col)] = n
			}
		default:
			d.Fatalf(t, "unknown argument %s", arg.Key)
		}
	}
	stats[strings.ToLower(d.CmdArgs[0].Key)] = s
	return ""
}

func runCommand(t *testing.T, cat *catalog.Catalog, stats map[string]cost.TableStats, d *datadriven.TestData) string {
	switch d.Cmd {
	case "exec-ddl":
		if err := plantest.ExecDDL(cat, d.Input); err != nil {
			return "error: " + err.Error() + "\n"
		}
		return ""
	case "build", "opt", "physical", "trace", "decisions":
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
			case "optional-off":
				// As SET optimizer = off: only the required rules run.
				for v := range optimizer.OptionalRules() {
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
		est := &cost.Estimator{Md: q.Md, Stats: func(o *catalog.Object) (cost.TableStats, bool) {
			s, ok := stats[strings.ToLower(o.Name)]
			return s, ok
		}}
		out, tr, err := optimizer.Normalize(&rules.Context{Md: q.Md, Fold: expr.EvalConst, Cost: est}, q.Root, opts)
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
		case "decisions":
			p, err := physical.Build(q.Md, out, physical.Options{Parallelism: parallelism, Cost: est})
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return cost.FormatDecisions(append(tr.Decisions, physical.Decisions(p)...))
		}
		p, err := physical.Build(q.Md, out, physical.Options{Parallelism: parallelism, Cost: est})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return physical.Format(p)
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}
