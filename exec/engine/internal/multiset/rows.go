package multiset

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Cell is one value of a result row prepared for comparison: NULL, an
// approximate number (Approx, F), or a value compared exactly by its text
// (S). Show is how a report prints it.
type Cell struct {
	Null   bool
	Approx bool
	F      float64
	S      string
	Show   string
}

// Key is the cell's part of a row's exact-match key: approximate numbers
// by ApproxKey (pairs that round apart are matched afterwards by Equal).
func (c Cell) Key() string {
	switch {
	case c.Null:
		return "\x00"
	case c.Approx:
		return ApproxKey(c.F)
	}
	return "=" + c.S
}

// Equal reports whether two cells hold the same value; approximate
// numbers are the same when equal or near.
func (c Cell) Equal(d Cell, near func(x, y float64) bool) bool {
	switch {
	case c.Null || d.Null:
		return c.Null == d.Null
	case c.Approx != d.Approx:
		return false
	case !c.Approx:
		return c.S == d.S
	}
	return c.F == d.F || near(c.F, d.F)
}

// Near reports whether x and y are within a relative 1e-9 of the larger.
func Near(x, y float64) bool {
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// Row is a result row prepared for comparison.
type Row []Cell

// Key is the row's exact-match key: its cells' keys.
func (r Row) Key() string {
	var b strings.Builder
	for _, c := range r {
		b.WriteString(c.Key())
		b.WriteByte(0x1f)
	}
	return b.String()
}

// String renders the row for a report, values separated by " | ".
func (r Row) String() string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.Show
	}
	return strings.Join(parts, " | ")
}

// Rows prepares a result for comparison: cell(v, j) is the cell of value
// v in column j.
func Rows[V any](rows [][]V, cell func(v V, col int) Cell) []Row {
	out := make([]Row, len(rows))
	for i, vs := range rows {
		out[i] = make(Row, len(vs))
		for j, v := range vs {
			out[i][j] = cell(v, j)
		}
	}
	return out
}

// DiffRows compares a and b as multisets of rows (Diff; rows are equal
// when their cells are, approximate numbers by near) and returns the rows
// each side has more often than the other, as text, sorted.
func DiffRows(a, b []Row, near func(x, y float64) bool) (onlyA, onlyB []string) {
	equal := func(r, s Row) bool {
		return len(r) == len(s) && slices.EqualFunc(r, s, func(c, d Cell) bool { return c.Equal(d, near) })
	}
	leftA, leftB := Diff(a, b, Row.Key, equal)
	for _, r := range leftA {
		onlyA = append(onlyA, r.String())
	}
	for _, r := range leftB {
		onlyB = append(onlyB, r.String())
	}
	slices.Sort(onlyA)
	slices.Sort(onlyB)
	return onlyA, onlyB
}

// WriteRows writes a report's list of rows: the header line, then the
// rows indented, at most max of them, then how many more there are.
func WriteRows(b *strings.Builder, header string, rows []string, max int) {
	b.WriteString(header + "\n")
	for i, r := range rows {
		if i == max {
			fmt.Fprintf(b, "  ... and %d more\n", len(rows)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", r)
	}
}
