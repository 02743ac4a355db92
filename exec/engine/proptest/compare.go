package proptest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/internal/multiset"
)

// newCell prepares a value of type t for comparison: DOUBLEs as numbers,
// equal within a relative 1e-9 (multiset.Near: the generator keeps
// aggregate arguments exact, so this only absorbs rounding in expressions
// the plans evaluate in a different order); every other type by its text
// (types.Format), exactly.
func newCell(d types.Datum, t types.T) multiset.Cell {
	switch {
	case d.Null:
		return multiset.Cell{Null: true, Show: "NULL"}
	case t.Physical() == types.PhysFloat64:
		f := d.F
		if f == 0 {
			f = 0 // -0 and 0 are the same value
		}
		return multiset.Cell{Approx: true, F: f, Show: types.FormatFloat(f)}
	}
	s := types.Format(d, t)
	show := s
	if s == "" {
		show = "(empty)"
	}
	return multiset.Cell{S: s, Show: show}
}

// Diff is how the two views of a case differ.
type Diff struct {
	// Columns describes a difference in the views' columns (names or
	// types), "" when they agree.
	Columns string
	// OnlyOn and OnlyOff are the rows (as text) one view holds more often
	// than the other, sorted.
	OnlyOn, OnlyOff []string
}

// Empty reports whether the views agree.
func (d Diff) Empty() bool { return d.Columns == "" && len(d.OnlyOn) == 0 && len(d.OnlyOff) == 0 }

// maxShown is how many rows of each side a report shows.
const maxShown = 10

// String renders the difference for a report.
func (d Diff) String() string {
	var b strings.Builder
	if d.Columns != "" {
		b.WriteString("columns differ: " + d.Columns + "\n")
	}
	for _, side := range []struct {
		name string
		rows []string
	}{{"on", d.OnlyOn}, {"off", d.OnlyOff}} {
		if len(side.rows) > 0 {
			multiset.WriteRows(&b, fmt.Sprintf("%d row(s) only with optimizer %s:", len(side.rows), side.name), side.rows, maxShown)
		}
	}
	return b.String()
}

// Compare compares two views' contents as multisets of rows: first exactly
// by key, then the rows left over pairwise with the DOUBLE tolerance.
func Compare(onCols []engine.Column, on [][]types.Datum, offCols []engine.Column, off [][]types.Datum) Diff {
	var d Diff
	if !slices.Equal(onCols, offCols) {
		d.Columns = fmt.Sprintf("on (%s), off (%s)", describeCols(onCols), describeCols(offCols))
		return d
	}
	prepare := func(cols []engine.Column, rows [][]types.Datum) []multiset.Row {
		return multiset.Rows(rows, func(d types.Datum, j int) multiset.Cell { return newCell(d, cols[j].Type) })
	}
	d.OnlyOn, d.OnlyOff = multiset.DiffRows(prepare(onCols, on), prepare(offCols, off), multiset.Near)
	return d
}

func describeCols(cols []engine.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}
