package slt

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

func TestValues(t *testing.T) {
	ts, _ := types.ParseTimestamp("2024-01-01 00:00:01.250")
	day, _ := types.ParseDate("2024-02-29")
	for _, tc := range []struct {
		typ  types.T
		d    types.Datum
		want string
	}{
		{types.BigIntT, types.IntDatum(-42), "-42"},
		{types.IntT, types.NullDatum, "NULL"},
		{types.DoubleT, types.FloatDatum(2.5), "2.500"},
		{types.DoubleT, types.FloatDatum(1.0 / 3), "0.333"},
		{types.DoubleT, types.FloatDatum(-0.0001), "0.000"},
		{types.DoubleT, types.FloatDatum(math.Inf(1)), "Infinity"},
		{types.DecimalT(10, 2), types.DecimalDatum(decimal128.FromI64(1250)), "12.500"},
		{types.DecimalT(10, 5), types.DecimalDatum(decimal128.FromI64(123456)), "1.235"},
		{types.DecimalT(10, 0), types.DecimalDatum(decimal128.FromI64(-7)), "-7.000"},
		{types.VarcharT, types.StringDatum("a b"), "a b"},
		{types.VarcharT, types.StringDatum(""), "(empty)"},
		{types.VarcharT, types.NullDatum, "NULL"},
		{types.BoolT, types.BoolDatum(true), "true"},
		{types.BoolT, types.BoolDatum(false), "false"},
		{types.TimestampT(3), types.IntDatum(ts), "2024-01-01 00:00:01.250"},
		{types.TimestampT(0), types.IntDatum(ts), "2024-01-01 00:00:01"},
		{types.DateT, types.IntDatum(int64(day)), "2024-02-29"},
	} {
		got := values([]engine.Column{{Name: "c", Type: tc.typ}}, [][]types.Datum{{tc.d}})
		if got[0][0] != tc.want {
			t.Errorf("%s %+v: got %q, want %q", tc.typ, tc.d, got[0][0], tc.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  1   2\t3 ":              "1 2 3",
		"2024-01-01  00:00:01.000": "2024-01-01 00:00:01.000",
		"":                         "",
		"a\nb":                     "a b",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// rendered splits each line at "|" into the values of a rendered row:
// "1|a" → [1 a].
func rendered(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Split(l, "|")
	}
	return out
}

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name     string
		expected []string
		got      [][]string
		ncols    int
		mode     sortMode
		ok       bool
	}{
		{"nosort equal", []string{"1 a", "2 b"}, rendered("1|a", "2|b"), 2, noSort, true},
		{"nosort order matters", []string{"2 b", "1 a"}, rendered("1|a", "2|b"), 2, noSort, false},
		{"rowsort any order", []string{"2 b", "1 a"}, rendered("1|a", "2|b"), 2, rowSort, true},
		{"rowsort different", []string{"2 b", "1 c"}, rendered("1|a", "2|b"), 2, rowSort, false},
		{"whitespace collapsed", []string{"  1    a ", "2\tb"}, rendered("1|a", "2|b"), 2, noSort, true},
		{"timestamp inner space", []string{"1 2024-01-01 00:00:01"}, rendered("1|2024-01-01 00:00:01"), 2, noSort, true},
		{"value per line", []string{"1", "a", "2", "b"}, rendered("1|a", "2|b"), 2, noSort, true},
		{"value per line rowsort", []string{"2", "b", "1", "a"}, rendered("1|a", "2|b"), 2, rowSort, true},
		{"value per line wrong", []string{"1", "a", "2", "c"}, rendered("1|a", "2|b"), 2, noSort, false},
		{"valuesort", []string{"a 2", "b 1"}, rendered("1|a", "2|b"), 2, valueSort, true},
		{"valuesort per line", []string{"b", "2", "a", "1"}, rendered("1|a", "2|b"), 2, valueSort, true},
		{"valuesort different", []string{"a 2", "b 3"}, rendered("1|a", "2|b"), 2, valueSort, false},
		{"empty both", nil, nil, 1, noSort, true},
		{"missing row", []string{"1"}, nil, 1, noSort, false},
		{"extra row", nil, rendered("1"), 1, noSort, false},
		{"empty string and NULL", []string{"(empty) NULL"}, rendered("(empty)|NULL"), 2, noSort, true},
	} {
		mm, _ := compare(tc.expected, tc.got, tc.ncols, tc.mode)
		if (mm == nil) != tc.ok {
			t.Errorf("%s: mismatch %+v, want ok=%v", tc.name, mm, tc.ok)
		}
	}
}

func TestCompareFirstDiff(t *testing.T) {
	mm, got := compare([]string{"1 a", "2 b", "3 c"}, rendered("1|a", "2|x", "3|c"), 2, noSort)
	if mm == nil || mm.Index != 2 || mm.Expected != "2 b" || mm.Got != "2 x" || mm.Unit != "row" {
		t.Fatalf("got %+v", mm)
	}
	if strings.Join(got, "|") != "1 a|2 x|3 c" {
		t.Errorf("actual lines %q", got)
	}
	mm, _ = compare([]string{"1", "2"}, rendered("1"), 1, noSort)
	if mm == nil || mm.Index != 2 || mm.Expected != "2" || mm.Got != "" || mm.NExpected != 2 || mm.NGot != 1 {
		t.Fatalf("missing row: got %+v", mm)
	}
	// A value-per-line expectation that is wrong is reported in row form.
	mm, _ = compare([]string{"1", "a", "2", "c"}, rendered("1|a", "2|b"), 2, noSort)
	if mm == nil || mm.Index != 2 || mm.Expected != "2 c" || mm.Got != "2 b" {
		t.Fatalf("value form: got %+v", mm)
	}
	mm, _ = compare([]string{"1 2"}, rendered("1|3"), 2, valueSort)
	if mm == nil || mm.Unit != "value" || mm.Index != 2 || mm.Expected != "2" || mm.Got != "3" {
		t.Fatalf("valuesort: got %+v", mm)
	}
}
