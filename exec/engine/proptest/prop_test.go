package proptest

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Flags of the property test (see doc.go).
var (
	flagN      = flag.Int("prop.n", 0, "number of cases to run (0: the default sample; 1000 is the long mode)")
	flagSeed   = flag.Uint64("prop.seed", defaultSeed, "seed of the first case; case i runs seed+i")
	flagOut    = flag.String("prop.out", "", "directory to write each failing case's script into, as seed-S.sql")
	flagStrict = flag.Bool("prop.strict", false, "fail on known issues too")
	flagShow   = flag.Bool("prop.show", false, "log every case's query, not only the failing ones")
	flagSubq   = flag.Bool("prop.subqueries", true, "also generate scalar subqueries and subquery predicates "+
		"under OR and NOT, quantified and in select lists (GenSubqueries)")
)

const (
	// defaultN is the sample `go test` runs: a few seconds on two cores
	// (about twenty with -race), enough that every feature appears many times.
	defaultN = 300
	// defaultSeed is the first seed of the default sample.
	defaultSeed = 1
	// caseTimeout bounds one case; they take milliseconds, so a case that
	// runs out of time is stuck.
	caseTimeout = 30 * time.Second
)

// TestOptimizerNeverChangesAnswers is the property test: for every case,
// the optimized plan and the plan with every optional rule disabled hold
// the same rows once all input is flushed.
func TestOptimizerNeverChangesAnswers(t *testing.T) {
	n := *flagN
	if n <= 0 {
		n = defaultN
		if testing.Short() {
			n = defaultN / 4
		}
	}
	GenSubqueries = *flagSubq
	defer func() { GenSubqueries = false }()
	tally := newTally()
	start := time.Now()
	for i := range n {
		c := NewCase(*flagSeed + uint64(i))
		ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
		out := RunCase(ctx, c)
		var known *issue
		if out.Status == Differed || out.Status == Failed {
			known = knownIssue(ctx, out)
		}
		cancel()
		tally.add(out, known)
		if *flagShow {
			t.Logf("seed %d: %s, %d rows %s\n  features: %s\n%s", c.Seed, out.Status, out.Rows, out.Reason,
				strings.Join(c.Query.Features.Names(), " "), describe(c))
		}
		if out.Status == Agreed || out.Status == Skipped || known != nil && !*flagStrict {
			continue
		}
		report(t, out, known)
	}
	t.Logf("%d cases in %v: %s", n, time.Since(start).Round(time.Millisecond), tally)
}

// report fails the test with everything needed to reproduce a case.
func report(t *testing.T, out Outcome, known *issue) {
	t.Helper()
	c := out.Case
	msg := fmt.Sprintf("seed %d: %s", c.Seed, out.Status)
	if out.Reason != "" {
		msg += ": " + out.Reason
	}
	if known != nil {
		msg += "\n(known issue " + known.Name + ": " + known.Summary + ")"
	}
	msg += "\n" + describe(c)
	if !out.Diff.Empty() {
		if out.View != "" {
			msg += "helper view " + out.View + " differs:\n"
		}
		msg += out.Diff.String()
	}
	msg += fmt.Sprintf("reproduce: go test ./exec/engine/proptest -run TestOptimizerNeverChangesAnswers -prop.seed=%d -prop.n=1", c.Seed)
	if *flagOut != "" {
		path := filepath.Join(*flagOut, fmt.Sprintf("seed-%d.sql", c.Seed))
		err := os.MkdirAll(*flagOut, 0o755)
		if err == nil {
			err = os.WriteFile(path, []byte(c.Script()), 0o644)
		}
		if err != nil {
			msg += "\nwriting the script: " + err.Error()
		} else {
			msg += "\nscript: " + path
		}
	}
	t.Error(msg)
}

// describe renders a case's query, its helper views and its plans.
func describe(c *Case) string {
	var b strings.Builder
	for _, v := range c.Query.Views {
		fmt.Fprintf(&b, "  view %s: %s%s\n", v.Name, v.SQL, v.Emit)
	}
	fmt.Fprintf(&b, "  query: %s%s\n", c.Query.SQL, c.Query.Emit)
	fmt.Fprintf(&b, "  parallelism: on %d, off %d; %d input rows in %d rounds\n",
		c.Sides[0].Parallelism, c.Sides[1].Parallelism, c.Data.Rows(), len(c.Data.Rounds))
	return b.String()
}

// tally counts the outcomes of a run.
type tally struct {
	status  map[Status]int
	skipped map[string]int // by the feature eddy does not support
	known   map[string]int // by known issue
	empty   int            // agreed cases whose views are empty
}

func newTally() *tally {
	return &tally{status: map[Status]int{}, skipped: map[string]int{}, known: map[string]int{}}
}

func (t *tally) add(out Outcome, known *issue) {
	t.status[out.Status]++
	switch {
	case out.Status == Skipped:
		t.skipped[out.Reason]++
	case out.Status == Agreed && out.Rows == 0:
		t.empty++
	}
	if known != nil {
		t.known[known.Name]++
	}
}

func (t *tally) String() string {
	run := 0
	for _, n := range t.status {
		run += n
	}
	s := fmt.Sprintf("%d agreed / %d run (%d with empty views), %d skipped, %d differed, %d failed",
		t.status[Agreed], run, t.empty, t.status[Skipped], t.status[Differed], t.status[Failed])
	for _, name := range slices.Sorted(maps.Keys(t.skipped)) {
		s += fmt.Sprintf("\n  skipped, not supported yet: %s: %d", name, t.skipped[name])
	}
	for _, name := range slices.Sorted(maps.Keys(t.known)) {
		s += fmt.Sprintf("\n  known issue %s: %d", name, t.known[name])
	}
	return s
}
