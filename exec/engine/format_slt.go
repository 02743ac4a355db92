package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eddysql/eddy/catalog/types"
)

// sltValues renders rows as sqllogictest prints them (SQL.md, "Output in
// tests"): each value with types.FormatSLT for its column's type.
func sltValues(cols []Column, rows [][]types.Datum) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, d := range r {
			t := types.VarcharT
			if j < len(cols) {
				t = cols[j].Type
			}
			vals[j] = types.FormatSLT(d, t)
		}
		out[i] = vals
	}
	return out
}

// normalizeSLT collapses every run of whitespace into one space and trims
// the ends, as sqllogictest-rs compares lines.
func normalizeSLT(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sltMismatch is the first difference between expected and actual results.
type sltMismatch struct {
	Index     int    // 1-based row (or value, for valuesort) that differs
	Expected  string // "" when the expected results ran out
	Got       string // "" when the actual results ran out
	NExpected int    // expected rows (values for valuesort)
	NGot      int    // actual rows (values for valuesort)
	Unit      string // "row" or "value"
}

// compareSLT compares a query's rendered rows (vals) with the expected
// result lines under a sort mode. Expected lines may hold a row each or,
// as sqllogictest also writes them, a value each; both are tried. It
// returns nil when they match, and otherwise the first difference. The
// second result is the actual output as the record would spell it, for
// the report.
func compareSLT(expected []string, vals [][]string, ncols int, mode sltSort) (*sltMismatch, []string) {
	if mode == sltValueSort {
		return sltCompareValues(expected, vals)
	}
	got := make([]string, len(vals))
	for i, r := range vals {
		got[i] = normalizeSLT(strings.Join(r, " "))
	}
	exp := make([]string, len(expected))
	for i, e := range expected {
		exp[i] = normalizeSLT(e)
	}
	if mode == sltRowSort {
		slices.Sort(got)
		slices.Sort(exp)
	}
	if slices.Equal(exp, got) {
		return nil, got
	}
	if ncols > 1 && len(exp) == len(vals)*ncols && len(exp) > 0 {
		rows := make([]string, 0, len(vals))
		for i := 0; i+ncols <= len(expected); i += ncols {
			vs := make([]string, ncols)
			for j := range vs {
				vs[j] = normalizeSLT(expected[i+j])
			}
			rows = append(rows, strings.Join(vs, " "))
		}
		if mode == sltRowSort {
			slices.Sort(rows)
		}
		if slices.Equal(rows, got) {
			return nil, got
		}
		// Report in the value form only if the lines cannot be rows: a
		// rendered row has at least one token per column.
		if slices.ContainsFunc(expected, func(e string) bool { return len(strings.Fields(e)) < ncols }) {
			exp = rows
		}
	}
	return sltFirstDiff(exp, got, "row"), got
}

// sltCompareValues implements valuesort: every whitespace-separated token of
// the expected lines and of the actual values, each sorted, must match.
// Splitting both sides the same way makes the row and value-per-line
// forms equivalent, and values with inner spaces (timestamps) harmless.
func sltCompareValues(expected []string, vals [][]string) (*sltMismatch, []string) {
	var exp, got []string
	for _, e := range expected {
		exp = append(exp, strings.Fields(e)...)
	}
	for _, r := range vals {
		for _, v := range r {
			got = append(got, strings.Fields(v)...)
		}
	}
	slices.Sort(exp)
	slices.Sort(got)
	if slices.Equal(exp, got) {
		return nil, got
	}
	return sltFirstDiff(exp, got, "value"), got
}

// sltFirstDiff returns the first position where exp and got differ.
func sltFirstDiff(exp, got []string, unit string) *sltMismatch {
	m := &sltMismatch{NExpected: len(exp), NGot: len(got), Unit: unit}
	for i := 0; ; i++ {
		var e, g string
		if i < len(exp) {
			e = exp[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if i >= len(exp) || i >= len(got) || e != g {
			m.Index, m.Expected, m.Got = i+1, e, g
			return m
		}
	}
}

// SLTReport is the outcome of one sqllogictest file.
type SLTReport struct {
	File     string
	Passed   int
	Failed   int
	Skipped  int  // excluded by skipif/onlyif
	Halted   bool // a halt record ended the file early
	Failures []SLTFailure
	Elapsed  time.Duration
}

// OK reports whether no record failed.
func (r *SLTReport) OK() bool { return r.Failed == 0 }

// Summary returns one line: the file and its counts.
func (r *SLTReport) Summary() string {
	s := fmt.Sprintf("%s: %d passed, %d failed, %d skipped", r.File, r.Passed, r.Failed, r.Skipped)
	if r.Halted {
		s += ", halted"
	}
	return s + fmt.Sprintf(" (%s)", r.Elapsed.Round(time.Millisecond))
}

// String returns every failure followed by the summary line.
func (r *SLTReport) String() string {
	var b strings.Builder
	for _, f := range r.Failures {
		b.WriteString(f.String())
		b.WriteString("\n")
	}
	b.WriteString(r.Summary())
	return b.String()
}

// sltMaxReportedRows bounds the actual output a failure lists, so a huge
// result does not drown the report.
const sltMaxReportedRows = 50

// SLTFailure is one failed record.
type SLTFailure struct {
	File   string
	Line   int    // the record's header line
	SQL    string // the record's statement ("" for restart and the like)
	Reason string // what went wrong, e.g. "result mismatch: expected 3 rows, got 2"
	// Diff is the first differing row of a result mismatch, and Got the
	// actual result as the record would spell it; both are nil otherwise.
	Diff *sltMismatch
	Got  []string
	// Raw is the actual result of a mismatch, one line per row as it would
	// be written (values joined by a space, rows sorted for rowsort), and
	// DashLine and ExpectedLines locate the record's result section: what
	// RunConfig.Rewrite replaces.
	Raw                     []string
	DashLine, ExpectedLines int
}

// String renders the failure: file:line and reason, the SQL, then for a
// mismatch the first differing row and the actual result.
func (f *SLTFailure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s\n", f.File, f.Line, sltIndentRest(f.Reason, "    "))
	if f.SQL != "" {
		b.WriteString(sltIndent(f.SQL, "    "))
	}
	if d := f.Diff; d != nil {
		fmt.Fprintf(&b, "  first difference at %s %d:\n", d.Unit, d.Index)
		fmt.Fprintf(&b, "    expected: %s\n", sltOrMissing(d.Expected, d.Index > d.NExpected))
		fmt.Fprintf(&b, "    got:      %s\n", sltOrMissing(d.Got, d.Index > d.NGot))
		b.WriteString("  got (whitespace collapsed):\n")
		if len(f.Got) == 0 {
			b.WriteString("    (nothing)\n")
		}
		for i, g := range f.Got {
			if i == sltMaxReportedRows {
				fmt.Fprintf(&b, "    ... %d more\n", len(f.Got)-i)
				break
			}
			b.WriteString("    " + g + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// sltPlural returns "1 row" or "n rows".
func sltPlural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func sltOrMissing(s string, missing bool) string {
	if missing {
		return "(missing)"
	}
	return s
}

// sltIndent prefixes every line of s and ends it with a newline.
func sltIndent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix) + "\n"
}

// sltIndentRest indents every line of s but the first.
func sltIndentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
