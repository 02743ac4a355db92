package difftest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine/internal/multiset"
)

// cell is one value normalized for comparison. Numbers of DOUBLE, FLOAT
// and DECIMAL columns compare approximately (approx); everything else by
// its text: integers and booleans (0/1) in decimal, times and dates as
// epoch milliseconds, strings as they are.
type cell struct {
	null   bool
	approx bool
	f      float64
	s      string
	show   string // how a report prints the value
}

// key is the cell's part of a row's exact-match key; approximate numbers
// are rounded to 9 significant digits (pairs that round apart are matched
// afterwards with the tolerance).
func (c cell) key() string {
	switch {
	case c.null:
		return "\x00"
	case c.approx:
		return multiset.ApproxKey(c.f)
	}
	return "=" + c.s
}

// equal reports whether two cells hold the same value: approximate numbers
// agree when they are within a relative 1e-9 or print alike with three
// decimals (as sqllogictest compares them).
func (c cell) equal(d cell) bool {
	switch {
	case c.null || d.null:
		return c.null == d.null
	case c.approx != d.approx:
		return false
	case !c.approx:
		return c.s == d.s
	}
	if c.f == d.f || math.Abs(c.f-d.f) <= 1e-9*math.Max(math.Abs(c.f), math.Abs(d.f)) {
		return true
	}
	return fixed3(c.f) == fixed3(d.f)
}

// fixed3 prints f with three decimals, as sqllogictest does.
func fixed3(f float64) string {
	s := strconv.FormatFloat(f, 'f', 3, 64)
	if s == "-0.000" {
		s = "0.000"
	}
	return s
}

// eddyCell normalizes a value eddy returned in a column of type t.
func eddyCell(d types.Datum, t types.T) cell {
	if d.Null {
		return cell{null: true, show: "NULL"}
	}
	show := types.FormatSLT(d, t)
	switch t.Physical() {
	case types.PhysFloat64:
		return cell{approx: true, f: d.F, show: show}
	case types.PhysDecimal:
		f, err := strconv.ParseFloat(d.D.ToString(int32(t.Scale)), 64)
		if err != nil {
			return cell{s: "bad decimal", show: show}
		}
		return cell{approx: true, f: f, show: show}
	case types.PhysString:
		return cell{s: d.S, show: show}
	case types.PhysDate32:
		return cell{s: strconv.FormatInt(d.I*types.MsPerDay, 10), show: show}
	}
	return cell{s: strconv.FormatInt(d.I, 10), show: show}
}

// sqliteCell normalizes a value SQLite returned for a column that eddy
// types t.
func sqliteCell(v any, t types.T) cell {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return cell{null: true, show: "NULL"}
	}
	switch t.Physical() {
	case types.PhysFloat64, types.PhysDecimal:
		switch x := v.(type) {
		case int64:
			return cell{approx: true, f: float64(x), show: fixed3(float64(x))}
		case float64:
			return cell{approx: true, f: x, show: fixed3(x)}
		}
	case types.PhysString:
		switch x := v.(type) {
		case string:
			return cell{s: x, show: showString(x)}
		case int64:
			return cell{s: strconv.FormatInt(x, 10), show: strconv.FormatInt(x, 10)}
		case float64:
			return cell{s: types.FormatFloat(x), show: types.FormatFloat(x)}
		}
	default:
		switch x := v.(type) {
		case int64:
			return intCell(x, t)
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return intCell(int64(x), t)
			}
		case string:
			if ms, err := types.ParseTimestamp(x); err == nil && t.IsTemporal() {
				return intCell(ms, t)
			}
		}
	}
	s := fmt.Sprintf("%v (%T)", v, v)
	return cell{s: s, show: s}
}

// intCell is an integer SQLite value in a column eddy types t.
func intCell(x int64, t types.T) cell {
	c := cell{s: strconv.FormatInt(x, 10)}
	switch t.Kind {
	case types.Boolean:
		c.show = strconv.FormatBool(x != 0)
		if x != 0 {
			c.s = "1"
		}
	case types.Timestamp:
		c.show = types.FormatTimestamp(x, int(t.Fsp))
	case types.Date:
		c.show = types.FormatDate(int32(math.Floor(float64(x) / float64(types.MsPerDay))))
		if x%types.MsPerDay != 0 {
			c.show += fmt.Sprintf(" (+%d ms)", x%types.MsPerDay)
		}
	default:
		c.show = c.s
	}
	return c
}

// showString prints a string as sqllogictest does: ” as (empty).
func showString(s string) string {
	if s == "" {
		return "(empty)"
	}
	return s
}

// row is a normalized row.
type row []cell

// key is the row's exact-match key: its cells' keys.
func (r row) key() string {
	var b strings.Builder
	for _, c := range r {
		b.WriteString(c.key())
		b.WriteByte(0x1f)
	}
	return b.String()
}

// equal reports whether two rows hold equal values, column by column.
func (r row) equal(s row) bool {
	if len(r) != len(s) {
		return false
	}
	for i := range r {
		if !r[i].equal(s[i]) {
			return false
		}
	}
	return true
}

// String renders the row for a report, values separated by " | ".
func (r row) String() string {
	parts := make([]string, len(r))
	for i, c := range r {
		parts[i] = c.show
	}
	return strings.Join(parts, " | ")
}

// Diff is how two results differ as multisets of rows.
type Diff struct {
	OnlyEddy, OnlySQLite []string // the rows (as text) found on one side only
}

// Empty reports whether the results agree.
func (d Diff) Empty() bool { return len(d.OnlyEddy) == 0 && len(d.OnlySQLite) == 0 }

// diffRows compares two multisets of normalized rows: first exactly by key,
// then the remaining rows pairwise with the numeric tolerance.
func diffRows(eddy, lite []row) Diff {
	onlyEddy, onlyLite := multiset.Diff(eddy, lite, row.key, row.equal)
	var d Diff
	for _, r := range onlyEddy {
		d.OnlyEddy = append(d.OnlyEddy, r.String())
	}
	for _, r := range onlyLite {
		d.OnlySQLite = append(d.OnlySQLite, r.String())
	}
	slices.Sort(d.OnlyEddy)
	slices.Sort(d.OnlySQLite)
	return d
}

// maxReported is how many differing rows of each side a report shows; the
// rest are counted.
const maxReported = 25

// String renders the difference for a test failure.
func (d Diff) String() string {
	var b strings.Builder
	side := func(title string, rows []string) {
		fmt.Fprintf(&b, "%d row(s) only in %s:\n", len(rows), title)
		for i, r := range rows {
			if i == maxReported {
				fmt.Fprintf(&b, "  ... and %d more\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	side("eddy", d.OnlyEddy)
	side("SQLite", d.OnlySQLite)
	return b.String()
}
