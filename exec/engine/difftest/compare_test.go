package difftest

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// TestCellNormalization checks that an eddy value and the SQLite value
// that stands for it compare equal, and that different values do not.
func TestCellNormalization(t *testing.T) {
	ts := types.TimestampT(3)
	dec := types.DecimalT(10, 2)
	cases := []struct {
		eddy  types.Datum
		lite  any
		typ   types.T
		equal bool
	}{
		{types.IntDatum(42), int64(42), types.BigIntT, true},
		{types.IntDatum(42), float64(42), types.BigIntT, true}, // SQLite's ROUND returns REAL
		{types.IntDatum(42), int64(43), types.BigIntT, false},
		{types.NullDatum, nil, types.BigIntT, true},
		{types.NullDatum, int64(0), types.BigIntT, false},
		{types.IntDatum(0), nil, types.BigIntT, false},
		{types.BoolDatum(true), int64(1), types.BoolT, true},
		{types.BoolDatum(false), int64(0), types.BoolT, true},
		{types.BoolDatum(false), nil, types.BoolT, false},
		{types.FloatDatum(0.1 + 0.2), 0.3, types.DoubleT, true},
		{types.FloatDatum(1e15 + 0.25), 1e15 + 0.5, types.DoubleT, true}, // relative 1e-9
		{types.FloatDatum(1.0004), 1.0001, types.DoubleT, true},          // equal at 3 decimals
		{types.FloatDatum(1.0004), 1.0006, types.DoubleT, false},
		{types.FloatDatum(math.Copysign(0, -1)), 0.0, types.DoubleT, true},
		{types.FloatDatum(2), int64(2), types.DoubleT, true},
		{types.DecimalDatum(decimal128.FromI64(12345)), 123.45, dec, true},
		{types.DecimalDatum(decimal128.FromI64(12345)), 123.46, dec, false},
		{types.StringDatum(""), "", types.VarcharT, true},
		{types.StringDatum(""), nil, types.VarcharT, false},
		{types.StringDatum("7"), int64(7), types.VarcharT, true},
		{types.IntDatum(-1500), int64(-1500), ts, true},
		{types.IntDatum(1000), "1970-01-01 00:00:01", ts, true},
		{types.IntDatum(-1), int64(-86400000), types.DateT, true}, // dates are days in eddy
	}
	for _, c := range cases {
		e, l := eddyCell(c.eddy, c.typ), sqliteCell(c.lite, c.typ)
		if got := e.Equal(l, near); got != c.equal {
			t.Errorf("%s %v vs SQLite %#v: equal = %v, want %v", c.typ, e.Show, c.lite, got, c.equal)
		}
		if c.equal && !c.typ.IsNumeric() && e.Key() != l.Key() {
			t.Errorf("%s %v vs SQLite %#v: keys %q and %q differ", c.typ, e.Show, c.lite, e.Key(), l.Key())
		}
	}
}

// TestCompareMultisets checks that duplicates count, that order does not,
// and that values within the tolerance but on either side of a rounding
// boundary of the exact-match key still pair up.
func TestCompareMultisets(t *testing.T) {
	// below and above straddle the decimal 1.234567885, where rounding to
	// 9 significant digits changes.
	below, above := math.Nextafter(1.234567885, 0), math.Nextafter(1.234567885, 2)
	if (cell{Approx: true, F: below}).Key() == (cell{Approx: true, F: above}).Key() {
		t.Fatal("the two values do not straddle a rounding boundary")
	}
	cols := []engine.Column{{Name: "k", Type: types.VarcharT}, {Name: "v", Type: types.DoubleT}}
	eddy := &Result{View: "v", Columns: cols, Rows: [][]types.Datum{
		{types.StringDatum("a"), types.FloatDatum(1)},
		{types.StringDatum("a"), types.FloatDatum(1)},
		{types.StringDatum("b"), types.FloatDatum(below)},
		{types.NullDatum, types.NullDatum},
	}}
	same := &SQLiteResult{Columns: []string{"k", "v"}, Values: [][]any{
		{nil, nil}, {"b", above}, {"a", int64(1)}, {"a", 1.0},
	}}
	if d, err := Compare(eddy, same); err != nil || !d.Empty() {
		t.Errorf("equal multisets differ: %v\n%s", err, d)
	}
	fewer := &SQLiteResult{Columns: []string{"k", "v"}, Values: [][]any{
		{nil, nil}, {"b", below}, {"a", 1.0}, {"c", 1.0},
	}}
	d, err := Compare(eddy, fewer)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.OnlyEddy) != 1 || d.OnlyEddy[0] != "a | 1.000" || len(d.OnlySQLite) != 1 || d.OnlySQLite[0] != "c | 1.000" {
		t.Errorf("got difference\n%s", d)
	}
	if _, err := Compare(eddy, &SQLiteResult{Columns: []string{"k"}}); err == nil {
		t.Error("a different number of columns is not reported")
	}
}
