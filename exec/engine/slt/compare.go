package slt

import (
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// values renders rows as sqllogictest prints them (SQL.md, "Output in
// tests"): each value with types.FormatSLT for its column's type.
func values(cols []engine.Column, rows [][]types.Datum) [][]string {
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

// normalize collapses every run of whitespace into one space and trims
// the ends, as sqllogictest-rs compares lines.
func normalize(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Mismatch is the first difference between expected and actual results.
type Mismatch struct {
	Index     int    // 1-based row (or value, for valuesort) that differs
	Expected  string // "" when the expected results ran out
	Got       string // "" when the actual results ran out
	NExpected int    // expected rows (values for valuesort)
	NGot      int    // actual rows (values for valuesort)
	Unit      string // "row" or "value"
}

// compare compares a query's rendered rows (vals) with the expected
// result lines under a sort mode. Expected lines may hold a row each or,
// as sqllogictest also writes them, a value each; both are tried. It
// returns nil when they match, and otherwise the first difference. The
// second result is the actual output as the record would spell it, for
// the report.
func compare(expected []string, vals [][]string, ncols int, mode sortMode) (*Mismatch, []string) {
	if mode == valueSort {
		return compareValues(expected, vals)
	}
	got := make([]string, len(vals))
	for i, r := range vals {
		got[i] = normalize(strings.Join(r, " "))
	}
	exp := make([]string, len(expected))
	for i, e := range expected {
		exp[i] = normalize(e)
	}
	if mode == rowSort {
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
				vs[j] = normalize(expected[i+j])
			}
			rows = append(rows, strings.Join(vs, " "))
		}
		if mode == rowSort {
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
	return firstDiff(exp, got, "row"), got
}

// compareValues implements valuesort: every whitespace-separated token of
// the expected lines and of the actual values, each sorted, must match.
// Splitting both sides the same way makes the row and value-per-line
// forms equivalent, and values with inner spaces (timestamps) harmless.
func compareValues(expected []string, vals [][]string) (*Mismatch, []string) {
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
	return firstDiff(exp, got, "value"), got
}

// firstDiff returns the first position where exp and got differ.
func firstDiff(exp, got []string, unit string) *Mismatch {
	m := &Mismatch{NExpected: len(exp), NGot: len(got), Unit: unit}
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
