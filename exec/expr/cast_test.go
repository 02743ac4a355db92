package expr

import (
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
)

func TestCastNumbers(t *testing.T) {
	in := []types.T{bigint, double, dec102, boolT}
	rows := [][]types.Datum{
		{i(3), f(2.5), d("2.50", 2), b(true)},
		{i(-3), f(-2.5), d("-2.45", 2), b(false)},
		{null, null, null, null},
	}
	I, F, D, B := col(0, bigint), col(1, double), col(2, dec102), col(3, boolT)
	d61 := types.DecimalT(6, 1)
	runCases(t, in, []tcase{
		{name: "int->double", e: cast(I, double), rows: rows, want: []types.Datum{f(3), f(-3), null}},
		{name: "int->decimal", e: cast(I, d61), rows: rows, want: []types.Datum{d("3.0", 1), d("-3.0", 1), null}},
		{name: "int->bool", e: cast(I, boolT), rows: rows, want: []types.Datum{b(true), b(true), null}},
		{name: "int->int identity", e: cast(I, types.IntT), rows: [][]types.Datum{{i(7), null, null, null}}, want: []types.Datum{i(7)}},
		{name: "int->tinyint range", e: cast(I, types.T{Kind: types.TinyInt}), rows: [][]types.Datum{{i(300), null, null, null}},
			err: "TINYINT value is out of range in 'CAST(300 AS TINYINT)'"},
		{name: "double->int rounds half away", e: cast(F, bigint), rows: rows, want: []types.Datum{i(3), i(-3), null}},
		{name: "double->int range", e: cast(F, bigint), rows: [][]types.Datum{{null, f(1e19), null, null}}, err: "out of range"},
		{name: "double->int NaN", e: cast(F, bigint), rows: [][]types.Datum{{null, f(math.NaN()), null, null}}, err: "out of range"},
		{name: "double->decimal", e: cast(F, d61), rows: rows, want: []types.Datum{d("2.5", 1), d("-2.5", 1), null}},
		{name: "double->decimal half away", e: cast(F, dec102), rows: [][]types.Datum{{null, f(1.005), null, null}, {null, f(-0.125), null, null}, {null, f(1e300), null, null}},
			err: "out of range"},
		{name: "double->decimal rounds", e: cast(F, dec102), rows: [][]types.Datum{{null, f(1.005), null, null}, {null, f(-0.125), null, null}},
			want: []types.Datum{d("1.01", 2), d("-0.13", 2)}},
		{name: "double->bool", e: cast(F, boolT), rows: rows, want: []types.Datum{b(true), b(true), null}},
		{name: "decimal->int", e: cast(D, bigint), rows: rows, want: []types.Datum{i(3), i(-2), null}},
		{name: "decimal->double", e: cast(D, double), rows: rows, want: []types.Datum{f(2.5), f(-2.45), null}},
		{name: "decimal rescale rounds", e: cast(D, d61), rows: rows, want: []types.Datum{d("2.5", 1), d("-2.5", 1), null}},
		{name: "decimal widen", e: cast(D, types.DecimalT(12, 4)), rows: rows, want: []types.Datum{d("2.5", 4), d("-2.45", 4), null}},
		{name: "decimal narrow overflow", e: cast(D, types.DecimalT(2, 1)), rows: [][]types.Datum{{null, null, d("12.00", 2), null}}, err: "out of range"},
		{name: "bool->int", e: cast(B, bigint), rows: rows, want: []types.Datum{i(1), i(0), null}},
		{name: "bool->double", e: cast(B, double), rows: rows, want: []types.Datum{f(1), f(0), null}},
		{name: "bool->decimal", e: cast(B, d61), rows: rows, want: []types.Datum{d("1", 1), d("0", 1), null}},
		{name: "null->int", e: cast(litNull(types.NullT), bigint), rows: rows, want: []types.Datum{null, null, null}},
	})
}

func TestCastStrings(t *testing.T) {
	in := []types.T{vchar}
	S := col(0, vchar)
	one := func(v string) [][]types.Datum { return [][]types.Datum{{s(v)}, {null}} }
	runCases(t, in, []tcase{
		{name: "int", e: cast(S, bigint), rows: one(" 42 "), want: []types.Datum{i(42), null}},
		{name: "int from fraction", e: cast(S, bigint), rows: one("2.5"), want: []types.Datum{i(3), null}},
		{name: "int bad", e: cast(S, bigint), rows: one("abc"), err: "cannot cast 'abc' to BIGINT"},
		{name: "int range", e: cast(S, bigint), rows: one("99999999999999999999"), err: "cannot cast '99999999999999999999' to BIGINT"},
		{name: "int kind range", e: cast(S, types.IntT), rows: one("3000000000"), err: "to INT"},
		{name: "double", e: cast(S, double), rows: one("-1.5e3"), want: []types.Datum{f(-1500), null}},
		{name: "double bad", e: cast(S, double), rows: one("1.2.3"), err: "cannot cast '1.2.3' to DOUBLE"},
		{name: "decimal", e: cast(S, dec102), rows: one("12.345"), want: []types.Datum{d("12.35", 2), null}},
		{name: "decimal bad", e: cast(S, dec102), rows: one("inf"), err: "cannot cast"},
		{name: "decimal range", e: cast(S, dec102), rows: one("123456789"), err: "cannot cast"},
		{name: "bool", e: cast(S, boolT), rows: one("TRUE"), want: []types.Datum{b(true), null}},
		{name: "bool no", e: cast(S, boolT), rows: one("off"), want: []types.Datum{b(false), null}},
		{name: "bool bad", e: cast(S, boolT), rows: one("maybe"), err: "cannot cast 'maybe' to BOOLEAN"},
		{name: "date", e: cast(S, dateT), rows: one("2024-02-29"), want: []types.Datum{dd("2024-02-29"), null}},
		{name: "date from timestamp", e: cast(S, dateT), rows: one("2024-02-29 23:59:59"), want: []types.Datum{dd("2024-02-29"), null}},
		{name: "date bad", e: cast(S, dateT), rows: one("2023-02-29"), err: "cannot cast '2023-02-29' to DATE"},
		{name: "timestamp", e: cast(S, ts3), rows: one("2024-01-01 10:11:12.345"), want: []types.Datum{tsd("2024-01-01 10:11:12.345"), null}},
		{name: "timestamp rounds to its fsp", e: cast(S, ts0), rows: one("2024-01-01 10:11:12.999"), want: []types.Datum{tsd("2024-01-01 10:11:13"), null}},
		{name: "timestamp bad", e: cast(S, ts3), rows: one("yesterday"), err: "cannot cast 'yesterday' to TIMESTAMP(3)"},
	})
}

func TestCastToString(t *testing.T) {
	in := []types.T{bigint, double, dec102, boolT, dateT, ts3, ivl, ts0}
	rows := [][]types.Datum{
		{i(-12), f(0.1), d("-0.05", 2), b(true), dd("2024-03-01"), tsd("2024-03-01 01:02:03.004"), i(90000), tsd("1969-12-31 23:59:59")},
		{null, null, null, null, null, null, null, null},
	}
	cases := []tcase{}
	wants := []string{"-12", "0.1", "-0.05", "true", "2024-03-01", "2024-03-01 01:02:03.004", "INTERVAL '90' SECOND", "1969-12-31 23:59:59"}
	for j, w := range wants {
		cases = append(cases, tcase{name: in[j].String(), e: cast(col(j, in[j]), vchar), rows: rows, want: []types.Datum{s(w), null}})
	}
	cases = append(cases,
		tcase{name: "big decimal", e: cast(lit(d("12345678901234567890.12", 2), types.DecimalT(30, 2)), vchar), rows: rows,
			want: []types.Datum{s("12345678901234567890.12"), s("12345678901234567890.12")}},
		tcase{name: "double exponent", e: cast(litF(1e300), vchar), rows: rows, want: []types.Datum{s("1e+300"), s("1e+300")}},
	)
	runCases(t, in, cases)
}

func TestCastTemporal(t *testing.T) {
	in := []types.T{ts3, dateT}
	rows := [][]types.Datum{{tsd("2024-01-01 23:59:59.999"), dd("2024-01-01")}, {tsd("1969-12-31 23:00:00.5"), dd("1969-12-31")}, {null, null}}
	runCases(t, in, []tcase{
		{name: "ts->date", e: cast(col(0, ts3), dateT), rows: rows, want: []types.Datum{dd("2024-01-01"), dd("1969-12-31"), null}},
		{name: "date->ts", e: cast(col(1, dateT), ts0), rows: rows, want: []types.Datum{tsd("2024-01-01"), tsd("1969-12-31"), null}},
		{name: "ts fsp rounds half up", e: cast(col(0, ts3), types.TimestampT(1)), rows: rows,
			want: []types.Datum{tsd("2024-01-02 00:00:00.0"), tsd("1969-12-31 23:00:00.5"), null}},
		{name: "ts widen identity", e: cast(col(0, types.TimestampT(3)), ts3), rows: rows,
			want: []types.Datum{tsd("2024-01-01 23:59:59.999"), tsd("1969-12-31 23:00:00.5"), null}},
	})
	for _, bad := range []struct{ from, to types.T }{{bigint, ts3}, {ts3, bigint}, {dateT, boolT}, {ivl, bigint}} {
		if _, err := Compile(cast(col(0, bad.from), bad.to), []types.T{bad.from}); err == nil {
			t.Errorf("CAST(%s AS %s) compiled", bad.from, bad.to)
		}
	}
}

func TestAppendDateMatchesTypes(t *testing.T) {
	for ms := int64(-70_000_000_000_000); ms < 260_000_000_000_000; ms += 987_654_321_987 {
		for fsp := 0; fsp <= 3; fsp++ {
			if got, want := string(appendDate(nil, ms, fsp)), types.FormatTimestamp(ms, fsp); got != want {
				t.Fatalf("%d fsp %d: %s, want %s", ms, fsp, got, want)
			}
		}
		days := floorDiv(ms, types.MsPerDay)
		if got, want := string(appendDate(nil, days*types.MsPerDay, -1)), types.FormatDate(int32(days)); got != want {
			t.Fatalf("day %d: %s, want %s", days, got, want)
		}
	}
}
