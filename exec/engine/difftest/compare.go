package difftest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine/internal/multiset"
)

// cell is one value normalized for comparison. Numbers of DOUBLE, FLOAT
// and DECIMAL columns compare approximately (Approx, within near);
// everything else by its text: integers and booleans (0/1) in decimal,
// times and dates as epoch milliseconds, strings as they are.
type cell = multiset.Cell

// near reports whether two approximate numbers agree: within a relative
// 1e-9, or printed alike with three decimals (as sqllogictest compares
// them).
func near(x, y float64) bool { return multiset.Near(x, y) || fixed3(x) == fixed3(y) }

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
		return cell{Null: true, Show: "NULL"}
	}
	show := types.FormatSLT(d, t)
	switch t.Physical() {
	case types.PhysFloat64:
		return cell{Approx: true, F: d.F, Show: show}
	case types.PhysDecimal:
		f, err := strconv.ParseFloat(d.D.ToString(int32(t.Scale)), 64)
		if err != nil {
			return cell{S: "bad decimal", Show: show}
		}
		return cell{Approx: true, F: f, Show: show}
	case types.PhysString:
		return cell{S: d.S, Show: show}
	case types.PhysDate32:
		return cell{S: strconv.FormatInt(d.I*types.MsPerDay, 10), Show: show}
	}
	return cell{S: strconv.FormatInt(d.I, 10), Show: show}
}

// sqliteCell normalizes a value SQLite returned for a column that eddy
// types t.
func sqliteCell(v any, t types.T) cell {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	if v == nil {
		return cell{Null: true, Show: "NULL"}
	}
	switch t.Physical() {
	case types.PhysFloat64, types.PhysDecimal:
		switch x := v.(type) {
		case int64:
			return cell{Approx: true, F: float64(x), Show: fixed3(float64(x))}
		case float64:
			return cell{Approx: true, F: x, Show: fixed3(x)}
		}
	case types.PhysString:
		switch x := v.(type) {
		case string:
			return cell{S: x, Show: showString(x)}
		case int64:
			return cell{S: strconv.FormatInt(x, 10), Show: strconv.FormatInt(x, 10)}
		case float64:
			return cell{S: types.FormatFloat(x), Show: types.FormatFloat(x)}
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
	return cell{S: s, Show: s}
}

// intCell is an integer SQLite value in a column eddy types t.
func intCell(x int64, t types.T) cell {
	c := cell{S: strconv.FormatInt(x, 10)}
	switch t.Kind {
	case types.Boolean:
		c.Show = strconv.FormatBool(x != 0)
		if x != 0 {
			c.S = "1"
		}
	case types.Timestamp:
		c.Show = types.FormatTimestamp(x, int(t.Fsp))
	case types.Date:
		c.Show = types.FormatDate(int32(math.Floor(float64(x) / float64(types.MsPerDay))))
		if x%types.MsPerDay != 0 {
			c.Show += fmt.Sprintf(" (+%d ms)", x%types.MsPerDay)
		}
	default:
		c.Show = c.S
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

// Diff is how two results differ as multisets of rows.
type Diff struct {
	OnlyEddy, OnlySQLite []string // the rows (as text) found on one side only
}

// Empty reports whether the results agree.
func (d Diff) Empty() bool { return len(d.OnlyEddy) == 0 && len(d.OnlySQLite) == 0 }

// maxReported is how many differing rows of each side a report shows; the
// rest are counted.
const maxReported = 25

// String renders the difference for a test failure.
func (d Diff) String() string {
	var b strings.Builder
	multiset.WriteRows(&b, fmt.Sprintf("%d row(s) only in eddy:", len(d.OnlyEddy)), d.OnlyEddy, maxReported)
	multiset.WriteRows(&b, fmt.Sprintf("%d row(s) only in SQLite:", len(d.OnlySQLite)), d.OnlySQLite, maxReported)
	return b.String()
}

// Compare compares what eddy's view holds with SQLite's result for it,
// as multisets of rows.
func Compare(eddy *Result, lite *SQLiteResult) (Diff, error) {
	if len(lite.Columns) != len(eddy.Columns) {
		return Diff{}, fmt.Errorf("view %s: eddy has %d columns, SQLite %d (%s)", eddy.View,
			len(eddy.Columns), len(lite.Columns), strings.Join(lite.Columns, ", "))
	}
	got := multiset.Rows(eddy.Rows, func(d types.Datum, j int) cell { return eddyCell(d, eddy.Columns[j].Type) })
	want := multiset.Rows(lite.Values, func(v any, j int) cell { return sqliteCell(v, eddy.Columns[j].Type) })
	var d Diff
	d.OnlyEddy, d.OnlySQLite = multiset.DiffRows(got, want, near)
	return d, nil
}
