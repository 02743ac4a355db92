package slt

import (
	"fmt"
	"strings"
	"time"
)

// Report is the outcome of one sqllogictest file.
type Report struct {
	File     string
	Passed   int
	Failed   int
	Skipped  int  // excluded by skipif/onlyif
	Halted   bool // a halt record ended the file early
	Failures []Failure
	Elapsed  time.Duration
}

// OK reports whether no record failed.
func (r *Report) OK() bool { return r.Failed == 0 }

// Summary returns one line: the file and its counts.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%s: %d passed, %d failed, %d skipped", r.File, r.Passed, r.Failed, r.Skipped)
	if r.Halted {
		s += ", halted"
	}
	return s + fmt.Sprintf(" (%s)", r.Elapsed.Round(time.Millisecond))
}

// String returns every failure followed by the summary line.
func (r *Report) String() string {
	var b strings.Builder
	for _, f := range r.Failures {
		b.WriteString(f.String())
		b.WriteString("\n")
	}
	b.WriteString(r.Summary())
	return b.String()
}

// maxReportedRows bounds the actual output a failure lists, so a huge
// result does not drown the report.
const maxReportedRows = 50

// Failure is one failed record.
type Failure struct {
	File   string
	Line   int    // the record's header line
	SQL    string // the record's statement ("" for restart and the like)
	Reason string // what went wrong, e.g. "result mismatch: expected 3 rows, got 2"
	// Diff is the first differing row of a result mismatch, and Got the
	// actual result as the record would spell it; both are nil otherwise.
	Diff *Mismatch
	Got  []string
	// Raw is the actual result of a mismatch, one line per row as it would
	// be written (values joined by a space, rows sorted for rowsort), and
	// DashLine and ExpectedLines locate the record's result section: what
	// Config.Rewrite replaces.
	Raw                     []string
	DashLine, ExpectedLines int
}

// String renders the failure: file:line and reason, the SQL, then for a
// mismatch the first differing row and the actual result.
func (f *Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s\n", f.File, f.Line, indentRest(f.Reason, "    "))
	if f.SQL != "" {
		b.WriteString(indent(f.SQL, "    "))
	}
	if d := f.Diff; d != nil {
		fmt.Fprintf(&b, "  first difference at %s %d:\n", d.Unit, d.Index)
		fmt.Fprintf(&b, "    expected: %s\n", orMissing(d.Expected, d.Index > d.NExpected))
		fmt.Fprintf(&b, "    got:      %s\n", orMissing(d.Got, d.Index > d.NGot))
		b.WriteString("  got (whitespace collapsed):\n")
		if len(f.Got) == 0 {
			b.WriteString("    (nothing)\n")
		}
		for i, g := range f.Got {
			if i == maxReportedRows {
				fmt.Fprintf(&b, "    ... %d more\n", len(f.Got)-i)
				break
			}
			b.WriteString("    " + g + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// plural returns "1 row" or "n rows".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func orMissing(s string, missing bool) string {
	if missing {
		return "(missing)"
	}
	return s
}

// indent prefixes every line of s and ends it with a newline.
func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix) + "\n"
}

// indentRest indents every line of s but the first.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
