package exectest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// Types parses a header of SQL type names; "null" is the NULL type.
func Types(t testing.TB, header string) []types.T {
	t.Helper()
	var ts []types.T
	for _, f := range strings.Fields(header) {
		if f == "null" {
			ts = append(ts, types.NullT)
			continue
		}
		typ, err := types.Parse(f)
		if err != nil {
			t.Fatalf("header %q: %v", header, err)
		}
		ts = append(ts, typ)
	}
	return ts
}

// Chunk builds a chunk from its text form (see the package comment); its
// columns are named c0, c1, ... The caller releases its batch.
func Chunk(t testing.TB, alloc memory.Allocator, text string) exec.Chunk {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	ts := Types(t, lines[0])
	var rows [][]types.Datum
	var ops []exec.Op
	inserts := true
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != len(ts)+1 {
			t.Fatalf("row %q: want an op and %d values", line, len(ts))
		}
		op := ParseOp(t, f[0])
		inserts = inserts && op == exec.Insert
		ops = append(ops, op)
		row := make([]types.Datum, len(ts))
		for j, typ := range ts {
			row[j] = ParseDatum(t, f[j+1], typ)
		}
		rows = append(rows, row)
	}
	if inserts {
		ops = nil
	}
	return exec.Chunk{Batch: types.BuildRecord(alloc, Names(len(ts)), ts, rows), Ops: ops}
}

// Names returns the column names c0 ... c(n-1).
func Names(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	return names
}

// ParseOp parses +I, -D, -U or +U.
func ParseOp(t testing.TB, s string) exec.Op {
	t.Helper()
	for _, o := range []exec.Op{exec.Insert, exec.Delete, exec.UpdateBefore, exec.UpdateAfter} {
		if o.String() == s {
			return o
		}
	}
	t.Fatalf("bad op %q", s)
	return exec.Insert
}

// ParseDatum parses a value of typ in the text form of chunks.
func ParseDatum(t testing.TB, s string, typ types.T) types.Datum {
	t.Helper()
	if s == "NULL" {
		return types.NullDatum
	}
	var err error
	var d types.Datum
	switch typ.Physical() {
	case types.PhysBool:
		var b bool
		b, err = strconv.ParseBool(s)
		d = types.BoolDatum(b)
	case types.PhysInt64:
		d.I, err = strconv.ParseInt(s, 10, 64)
	case types.PhysFloat64:
		d.F, err = strconv.ParseFloat(s, 64)
	case types.PhysDecimal:
		d.D, err = decimal128.FromString(s, int32(typ.Precision), int32(typ.Scale))
	case types.PhysString:
		if s == "''" {
			s = ""
		}
		d.S = s
	case types.PhysDate32:
		var days int32
		days, err = types.ParseDate(s)
		d.I = int64(days)
	case types.PhysTimestamp, types.PhysDuration:
		if d.I, err = strconv.ParseInt(s, 10, 64); err != nil && typ.Physical() == types.PhysTimestamp {
			d.I, err = types.ParseTimestamp(s)
		}
	default:
		err = fmt.Errorf("unsupported type %s", typ)
	}
	if err != nil {
		t.Fatalf("value %q of %s: %v", s, typ, err)
	}
	return d
}

// Format says how a collector renders timestamps.
type Format uint8

// The formats.
const (
	// Text renders values as SQL prints them (types.Format).
	Text Format = iota
	// Millis renders timestamps and intervals as counts of milliseconds,
	// as window tests write them.
	Millis
)

// FormatDatum renders a value for changelog comparisons: exact values,
// NULL, and two apostrophes for the empty string.
func FormatDatum(d types.Datum, typ types.T, f Format) string {
	switch p := typ.Physical(); {
	case d.Null:
		return "NULL"
	case p == types.PhysString && d.S == "":
		return "''"
	case f == Millis && (p == types.PhysTimestamp || p == types.PhysDuration):
		return strconv.FormatInt(d.I, 10)
	}
	return types.Format(d, typ)
}

// FormatRow renders a row with FormatDatum, values separated by spaces.
func FormatRow(row []types.Datum, ts []types.T, f Format) string {
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = FormatDatum(d, ts[i], f)
	}
	return strings.Join(parts, " ")
}

// RoundRow renders a row like FormatRow, with doubles rounded to 9
// significant digits: for comparisons with a brute-force recomputation
// that sums in another order.
func RoundRow(row []types.Datum, ts []types.T, f Format) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if !d.Null && ts[i].Physical() == types.PhysFloat64 {
			v := d.F
			if math.Abs(v) < 1e-9 {
				v = 0
			}
			parts[i] = strconv.FormatFloat(v, 'g', 9, 64)
			continue
		}
		parts[i] = FormatDatum(d, ts[i], f)
	}
	return strings.Join(parts, " ")
}

// Key returns a map key identifying a row's values: -0 and +0 are one
// value, as SQL compares them.
func Key(row []types.Datum) string {
	var b strings.Builder
	for _, d := range row {
		if d.F == 0 {
			d.F = 0
		}
		fmt.Fprintf(&b, "%t/%d/%v/%d:%d/%q|", d.Null, d.I, d.F, d.D.HighBits(), d.D.LowBits(), d.S)
	}
	return b.String()
}

// SchemaTypes returns the SQL types of a batch's columns.
func SchemaTypes(t testing.TB, schema *arrow.Schema) []types.T {
	t.Helper()
	var ts []types.T
	for _, f := range schema.Fields() {
		if f.Type.ID() == arrow.NULL {
			ts = append(ts, types.NullT)
			continue
		}
		typ, err := types.FromField(f)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, typ)
	}
	return ts
}
