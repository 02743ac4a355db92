package proptest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/exec/engine/internal/multiset"
)

// relTolerance is how far apart two DOUBLE values may be, relative to the
// larger, and still be equal: the generator keeps aggregate arguments
// exact, so this only absorbs rounding in expressions the plans evaluate
// in a different order.
const relTolerance = 1e-9

// cell is one value prepared for comparison: DOUBLEs as numbers, compared
// with relTolerance; every other type by its text (types.Format), exactly.
type cell struct {
	null   bool
	double bool
	f      float64
	s      string
}

func newCell(d types.Datum, t types.T) cell {
	switch {
	case d.Null:
		return cell{null: true}
	case t.Physical() == types.PhysFloat64:
		f := d.F
		if f == 0 {
			f = 0 // -0 and 0 are the same value
		}
		return cell{double: true, f: f}
	}
	return cell{s: types.Format(d, t)}
}

// key is the cell's part of a row's exact-match key; doubles are rounded
// to 9 significant digits (rows that round apart but are within the
// tolerance are paired afterwards).
func (c cell) key() string {
	switch {
	case c.null:
		return "\x00"
	case c.double:
		return multiset.ApproxKey(c.f)
	}
	return "=" + c.s
}

func (c cell) equal(d cell) bool {
	switch {
	case c.null || d.null:
		return c.null == d.null
	case c.double != d.double:
		return false
	case !c.double:
		return c.s == d.s
	}
	return c.f == d.f || math.Abs(c.f-d.f) <= relTolerance*math.Max(math.Abs(c.f), math.Abs(d.f))
}

func (c cell) String() string {
	switch {
	case c.null:
		return "NULL"
	case c.double:
		return types.FormatFloat(c.f)
	case c.s == "":
		return "(empty)"
	}
	return c.s
}

// row is a result row prepared for comparison.
type row []cell

func (r row) key() string {
	var b strings.Builder
	for _, c := range r {
		b.WriteString(c.key())
		b.WriteByte(0x1f)
	}
	return b.String()
}

func (r row) equal(s row) bool {
	return len(r) == len(s) && slices.EqualFunc(r, s, cell.equal)
}

func (r row) String() string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.String()
	}
	return strings.Join(parts, " | ")
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
	side := func(name string, rows []string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "%d row(s) only with optimizer %s:\n", len(rows), name)
		for i, r := range rows {
			if i == maxShown {
				fmt.Fprintf(&b, "  ... and %d more\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	side("on", d.OnlyOn)
	side("off", d.OnlyOff)
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
	onlyOn, onlyOff := multiset.Diff(prepare(onCols, on), prepare(offCols, off), row.key, row.equal)
	for _, r := range onlyOn {
		d.OnlyOn = append(d.OnlyOn, r.String())
	}
	for _, r := range onlyOff {
		d.OnlyOff = append(d.OnlyOff, r.String())
	}
	slices.Sort(d.OnlyOn)
	slices.Sort(d.OnlyOff)
	return d
}

func prepare(cols []engine.Column, rows [][]types.Datum) []row {
	out := make([]row, len(rows))
	for i, ds := range rows {
		out[i] = make(row, len(ds))
		for j, dt := range ds {
			out[i][j] = newCell(dt, cols[j].Type)
		}
	}
	return out
}

func describeCols(cols []engine.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}
