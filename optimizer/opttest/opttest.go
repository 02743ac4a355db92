// Package opttest runs the optimizer's golden files: the datadriven
// commands the optimizer, rules, physical and cost packages share, over an
// in-memory catalog (planner/plantest) and the statistics the files give.
// Each package's test walks its own testdata:
//
//	opttest.Walk(t, "testdata", planner.Continuous)
//
// Commands:
//
//	exec-ddl                      CREATE STREAM / TABLE / MATERIALIZED VIEW statements
//	stats name [rows=N] [rate=R] [distinct=(c:N,...)]
//	                              statistics the cost model sees for name
//	build                         the bound logical plan
//	opt [expect=R,..] [expect-not=R,..] [disable=R,..] [optional-off]
//	                              the plan after the rule phases; fails unless
//	                              every expected rule fired and no expect-not rule did;
//	                              optional-off disables every optional rule
//	                              (SET optimizer = off)
//	trace                         the rules that fired, with before and after
//	physical                      the physical plan, as EXPLAIN prints it
//	cost                          the cost-based decisions, as EXPLAIN VERBOSE
//	                              prints them: each choice's alternatives with
//	                              their estimated costs, the chosen one, and why
//
// The optimizing commands take the arguments of opt, and physical and cost
// also the session settings physical planning follows: parallelism=N,
// join-distribution=hash|broadcast, two-phase=on|off,
// broadcast-budget=BYTES and state-ttl=DURATION (Go's syntax: 1h, 200ms),
// adaptive (the joins that could be broadcast may switch at run time),
// share (a sub-plan used in several places is computed once, as the
// engine plans with the optimizer on) and
// switch=N:hash|broadcast:why (join N's distribution switched); mode=snapshot plans a pull query (the default is
// the mode Walk is given). Every optimization checks the plan's invariants after
// each rule application.
package opttest

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// Walk runs the golden files under dir, planning queries in mode unless a
// command says mode=snapshot.
func Walk(t *testing.T, dir string, mode planner.Mode) {
	plantest.Walk(t, dir, func(t *testing.T, cat *catalog.Catalog) func(*testing.T, *datadriven.TestData) string {
		r := &runner{cat: cat, stats: map[string]cost.TableStats{}, mode: mode}
		return r.run
	})
}

// runner runs the commands of one golden file: its catalog and statistics
// persist from command to command.
type runner struct {
	cat   *catalog.Catalog
	stats map[string]cost.TableStats
	mode  planner.Mode
}

// run runs one command other than exec-ddl and returns its output.
func (r *runner) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "stats":
		r.setStats(t, d)
		return ""
	case "build", "opt", "trace", "physical", "cost":
		return r.plan(t, d)
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}

// setStats records statistics for the cost model.
func (r *runner) setStats(t *testing.T, d *datadriven.TestData) {
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
	r.stats[strings.ToLower(d.CmdArgs[0].Key)] = s
}

// settings are a command's arguments.
type settings struct {
	mode              planner.Mode
	opts              optimizer.Options
	expect, expectNot []string
	phys              physical.Options
}

func (r *runner) parseArgs(t *testing.T, d *datadriven.TestData) settings {
	s := settings{mode: r.mode, opts: optimizer.Options{CheckInvariants: true, Disabled: map[string]bool{}},
		phys: physical.Options{Parallelism: 1}}
	for _, arg := range d.CmdArgs {
		switch arg.Key {
		case "mode":
			if arg.Vals[0] != "snapshot" {
				d.Fatalf(t, "unknown mode %s", arg.Vals[0])
			}
			s.mode = planner.Snapshot
		case "disable":
			for _, v := range arg.Vals {
				s.opts.Disabled[v] = true
			}
		case "optional-off":
			// As SET optimizer = off: only the required rules run.
			for v := range optimizer.OptionalRules() {
				s.opts.Disabled[v] = true
			}
		case "expect":
			s.expect = arg.Vals
		case "expect-not":
			s.expectNot = arg.Vals
		case "parallelism":
			fmt.Sscan(arg.Vals[0], &s.phys.Parallelism)
		case "join-distribution":
			s.phys.JoinDistribution = arg.Vals[0]
		case "two-phase":
			s.phys.TwoPhase = arg.Vals[0]
		case "broadcast-budget":
			fmt.Sscan(arg.Vals[0], &s.phys.BroadcastBudget)
		case "adaptive":
			s.phys.AdaptiveJoins = true
		case "share":
			s.phys.ShareSubplans = true
		case "switch":
			var sw physical.JoinSwitch
			parts := strings.SplitN(arg.Vals[0], ":", 3)
			if len(parts) != 3 {
				d.Fatalf(t, "switch=%s: want N:hash|broadcast:why", arg.Vals[0])
			}
			fmt.Sscan(parts[0], &sw.Join)
			sw.Broadcast, sw.Why = parts[1] == "broadcast", parts[2]
			s.phys.JoinSwitches = append(s.phys.JoinSwitches, sw)
		case "state-ttl":
			ttl, err := time.ParseDuration(arg.Vals[0])
			if err != nil {
				d.Fatalf(t, "state-ttl: %v", err)
			}
			s.phys.StateTTL = ttl
		default:
			d.Fatalf(t, "unknown argument %s", arg.Key)
		}
	}
	known := map[string]bool{}
	for _, n := range optimizer.RuleNames() {
		known[n] = true
	}
	for _, name := range append(append([]string(nil), s.expect...), s.expectNot...) {
		if !known[name] {
			d.Fatalf(t, "unknown rule %s", name)
		}
	}
	return s
}

// plan runs the planning commands: bind, then optimize, then plan
// physically, as far as the command needs.
func (r *runner) plan(t *testing.T, d *datadriven.TestData) string {
	s := r.parseArgs(t, d)
	q, err := plantest.BindText(r.cat, d.Input, s.mode)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if d.Cmd == "build" {
		return plan.Format(q.Md, q.Root)
	}
	est := &cost.Estimator{Md: q.Md, Stats: func(o *catalog.Object) (cost.TableStats, bool) {
		st, ok := r.stats[strings.ToLower(o.Name)]
		return st, ok
	}}
	out, tr, err := optimizer.Normalize(&rules.Context{Md: q.Md, Fold: expr.EvalConst, Cost: est}, q.Root, s.opts)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	for _, name := range s.expect {
		if !tr.Fired(name) {
			d.Fatalf(t, "expected rule %s to fire; it did not", name)
		}
	}
	for _, name := range s.expectNot {
		if tr.Fired(name) {
			d.Fatalf(t, "expected rule %s not to fire; it did", name)
		}
	}
	switch d.Cmd {
	case "opt":
		return plan.Format(q.Md, out)
	case "trace":
		var b strings.Builder
		for _, st := range tr.Steps {
			fmt.Fprintf(&b, "%s/%s\n  before: %s\n  after:  %s\n", st.Phase, st.Rule, st.Before, st.After)
		}
		return b.String()
	}
	s.phys.Cost = est
	p, err := physical.Build(q.Md, out, s.phys)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	if d.Cmd == "cost" {
		return cost.FormatDecisions(append(tr.Decisions, physical.Decisions(p)...))
	}
	return physical.Format(p)
}
