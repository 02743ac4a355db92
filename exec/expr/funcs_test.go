package expr

import (
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

func TestTimeFunctions(t *testing.T) {
	in := []types.T{ts3, dateT, bigint}
	T, D := col(0, ts3), col(1, dateT)
	rows := [][]types.Datum{
		{tsd("2024-02-29 13:05:09.045"), dd("2024-12-31"), i(86400)},
		{tsd("1969-12-31 00:00:00"), dd("1970-01-01"), i(-1)},
		{null, null, null},
	}
	ext := func(unit string, want ...types.Datum) tcase {
		return tcase{name: "extract " + unit, e: fn("extract", bigint, litS(unit), T), rows: rows, want: append(want, null)}
	}
	runCases(t, in, []tcase{
		ext("YEAR", i(2024), i(1969)),
		ext("quarter", i(1), i(4)),
		ext("MONTH", i(2), i(12)),
		ext("WEEK", i(9), i(1)),
		ext("DAY", i(29), i(31)),
		ext("DAYOFWEEK", i(5), i(4)),
		ext("DOW", i(5), i(4)),
		ext("DOY", i(60), i(365)),
		ext("HOUR", i(13), i(0)),
		ext("MINUTE", i(5), i(0)),
		ext("SECOND", i(9), i(0)),
		ext("MILLISECOND", i(9045), i(0)),
		ext("MICROSECOND", i(45000), i(0)),
		ext("EPOCH", i(1709211909), i(-86400)),
		{name: "extract date", e: fn("extract", bigint, litS("DAY"), D), rows: rows, want: []types.Datum{i(31), i(1), null}},
		{name: "extract bad unit", e: fn("extract", bigint, litS("FORTNIGHT"), T), err: "not supported yet"},
		{name: "date_format", e: fn("date_format", vchar, T, litS("%Y-%m-%d %H:%i:%s.%f %p %W %a %M %b %j %y %c/%e %k %h %I %l %T %r %% %x")), rows: rows,
			want: []types.Datum{
				s("2024-02-29 13:05:09.045000 PM Thursday Thu February Feb 060 24 2/29 13 01 01 1 13:05:09 01:05:09 PM % x"),
				s("1969-12-31 00:00:00.000000 AM Wednesday Wed December Dec 365 69 12/31 0 12 12 12 00:00:00 12:00:00 AM % x"),
				null}},
		{name: "to_char", e: fn("to_char", vchar, T, litS(`YYYY/MM/DD HH24:MI:SS.MS HH12 hh "at" x`)), rows: rows,
			want: []types.Datum{s("2024/02/29 13:05:09.045 01 01 at x"), s("1969/12/31 00:00:00.000 12 12 at x"), null}},
		{name: "date_format ordinal day and weekday number", e: fn("date_format", vchar, T, litS("%D %w")), rows: rows,
			want: []types.Datum{s("29th 4"), s("31st 3"), null}},
		{name: "to_char names, day of year and meridiem", e: fn("to_char", vchar, T, litS("Dy DY dy, Mon MON mon Month DDD AM pm")), rows: rows,
			want: []types.Datum{s("Thu THU thu, Feb FEB feb February 060 PM pm"), s("Wed WED wed, Dec DEC dec December 365 AM am"), null}},
		{name: "date_format varying", e: fn("date_format", vchar, lit(tsd("2024-01-02 03:04:05"), ts0), cast(col(2, bigint), vchar)), rows: rows,
			want: []types.Datum{s("86400"), s("-1"), null}},
		{name: "date", e: fn("date", dateT, T), rows: rows, want: []types.Datum{dd("2024-02-29"), dd("1969-12-31"), null}},
		{name: "date of date", e: fn("date", dateT, D), rows: rows, want: []types.Datum{dd("2024-12-31"), dd("1970-01-01"), null}},
		{name: "unix_timestamp", e: fn("unix_timestamp", bigint, T), rows: rows, want: []types.Datum{i(1709211909), i(-86400), null}},
		{name: "from_unixtime", e: fn("from_unixtime", ts0, col(2, bigint)), rows: rows, want: []types.Datum{tsd("1970-01-02"), tsd("1969-12-31 23:59:59"), null}},
		{name: "from_unixtime overflow", e: fn("from_unixtime", ts0, litI(math.MaxInt64)), err: "out of range"},
		{name: "localtimestamp", e: fn("localtimestamp", ts0), err: "not supported yet: LOCALTIMESTAMP() (non-deterministic)"},
	})
}

func TestCivil(t *testing.T) {
	for days := int64(-800000); days < 800000; days += 997 {
		y, m, d := civil(days)
		if back := daysFromCivil(y, m, d); back != days {
			t.Fatalf("days %d -> %d-%d-%d -> %d", days, y, m, d, back)
		}
		want := types.FormatDate(int32(days))
		if got := string(appendFormatted(nil, parseDateFormat("%Y-%m-%d"), days*types.MsPerDay)); got != want && y > 0 && y < 10000 {
			t.Fatalf("days %d: %s, want %s", days, got, want)
		}
	}
}

func TestMathFunctions(t *testing.T) {
	in := []types.T{bigint, double, dec102}
	I, F, D := col(0, bigint), col(1, double), col(2, dec102)
	rows := [][]types.Datum{{i(-1250), f(-2.5), d("-12.55", 2)}, {i(7), f(2.345), d("0.50", 2)}, {null, null, null}}
	d120 := types.DecimalT(11, 2)
	runCases(t, in, []tcase{
		{name: "abs int", e: fn("abs", bigint, I), rows: rows, want: []types.Datum{i(1250), i(7), null}},
		{name: "abs double", e: fn("abs", double, F), rows: rows, want: []types.Datum{f(2.5), f(2.345), null}},
		{name: "abs decimal", e: fn("abs", dec102, D), rows: rows, want: []types.Datum{d("12.55", 2), d("0.50", 2), null}},
		{name: "abs overflow", e: fn("abs", bigint, litI(math.MinInt64)), err: "out of range"},
		{name: "round int", e: fn("round", bigint, I, litI(-2)), rows: rows, want: []types.Datum{i(-1300), i(0), null}},
		{name: "round int positive d", e: fn("round", bigint, I, litI(2)), rows: rows, want: []types.Datum{i(-1250), i(7), null}},
		{name: "round double", e: fn("round", double, F), rows: rows, want: []types.Datum{f(-3), f(2), null}},
		{name: "round double d", e: fn("round", double, F, litI(2)), rows: rows, want: []types.Datum{f(-2.5), f(2.35), null}},
		{name: "round decimal", e: fn("round", types.DecimalT(9, 0), D), rows: rows, want: []types.Datum{d("-13", 0), d("1", 0), null}},
		{name: "round decimal d", e: fn("round", d120, D, litI(1)), rows: rows, want: []types.Datum{d("-12.60", 2), d("0.50", 2), null}},
		{name: "round decimal negative d", e: fn("round", d120, D, litI(-1)), rows: rows, want: []types.Datum{d("-10", 2), d("0", 2), null}},
		{name: "floor", e: fn("floor", double, F), rows: rows, want: []types.Datum{f(-3), f(2), null}},
		{name: "ceil", e: fn("ceil", double, F), rows: rows, want: []types.Datum{f(-2), f(3), null}},
		{name: "floor decimal", e: fn("floor", types.DecimalT(9, 0), D), rows: rows, want: []types.Datum{d("-13", 0), d("0", 0), null}},
		{name: "ceiling decimal", e: fn("ceiling", types.DecimalT(9, 0), D), rows: rows, want: []types.Datum{d("-12", 0), d("1", 0), null}},
		{name: "floor int", e: fn("floor", bigint, I), rows: rows, want: []types.Datum{i(-1250), i(7), null}},
		{name: "mod", e: fn("mod", bigint, I, litI(3)), rows: rows, want: []types.Datum{i(-2), i(1), null}},
		{name: "mod zero", e: fn("mod", bigint, I, litI(0)), rows: rows, want: []types.Datum{null, null, null}},
		{name: "power", e: fn("power", double, F, litF(2)), rows: rows, want: []types.Datum{f(6.25), f(math.Pow(2.345, 2)), null}},
		{name: "power undefined", e: fn("pow", double, F, litF(0.5)), rows: rows, want: []types.Datum{null, f(math.Sqrt(2.345)), null}},
		{name: "power overflow", e: fn("power", double, litF(10), litF(400)), err: "DOUBLE value is out of range in 'POWER(10, 400)'"},
		{name: "sqrt", e: fn("sqrt", double, F), rows: rows, want: []types.Datum{null, f(math.Sqrt(2.345)), null}},
	})
}

func TestConditionalFunctions(t *testing.T) {
	in := []types.T{bigint, bigint, vchar}
	A, B, S := col(0, bigint), col(1, bigint), col(2, vchar)
	rows := [][]types.Datum{{i(1), i(2), s("x")}, {null, i(5), null}, {null, null, s("")}, {i(0), i(0), s("y")}}
	runCases(t, in, []tcase{
		{name: "coalesce", e: fn("coalesce", bigint, A, B, litI(9)), rows: rows, want: []types.Datum{i(1), i(5), i(9), i(0)}},
		{name: "coalesce nulls", e: fn("coalesce", bigint, A, B), rows: rows, want: []types.Datum{i(1), i(5), null, i(0)}},
		{name: "coalesce one", e: fn("coalesce", bigint, A), rows: rows, want: []types.Datum{i(1), null, null, i(0)}},
		{name: "coalesce null first", e: fn("coalesce", vchar, litNull(vchar), S, litS("z")), rows: rows, want: []types.Datum{s("x"), s("z"), s(""), s("y")}},
		{name: "ifnull lazy", e: fn("ifnull", bigint, A, bin(plan.OpMul, B, litI(math.MaxInt64), bigint)), rows: [][]types.Datum{{i(1), i(5), null}, {null, i(1), null}},
			want: []types.Datum{i(1), i(math.MaxInt64)}},
		{name: "if", e: fn("if", vchar, cmpE(plan.OpGt, A, litI(0)), S, litS("no")), rows: rows, want: []types.Datum{s("x"), s("no"), s("no"), s("no")}},
		{name: "if lazy", e: fn("if", bigint, cmpE(plan.OpEq, B, litI(0)), litI(0), bin(plan.OpMul, B, litI(math.MaxInt64), bigint)),
			rows: [][]types.Datum{{null, i(0), null}, {null, i(1), null}}, want: []types.Datum{i(0), i(math.MaxInt64)}},
		{name: "nullif", e: fn("nullif", bigint, A, B), rows: rows, want: []types.Datum{i(1), null, null, null}},
		{name: "nullif strings", e: fn("nullif", vchar, S, litS("x")), rows: rows, want: []types.Datum{null, null, s(""), s("y")}},
		// A constant first argument against a column (a crash once: the
		// comparison read the constant as if it had a value per row).
		{name: "nullif constant first", e: fn("nullif", bigint, litI(1), A), rows: rows, want: []types.Datum{null, i(1), i(1), i(1)}},
		{name: "nullif constant first strings", e: fn("nullif", vchar, litS("y"), S), rows: rows, want: []types.Datum{s("y"), s("y"), s("y"), null}},
		{name: "nullif constant first doubles", e: fn("nullif", double, litF(5), cast(B, double)), rows: rows, want: []types.Datum{f(5), null, f(5), f(5)}},
		{name: "greatest", e: fn("greatest", bigint, A, B, litI(1)), rows: rows, want: []types.Datum{i(2), null, null, i(1)}},
		{name: "least", e: fn("least", bigint, B, litI(3)), rows: rows, want: []types.Datum{i(2), i(3), null, i(0)}},
		{name: "greatest strings", e: fn("greatest", vchar, S, litS("a")), rows: rows, want: []types.Datum{s("x"), null, s("a"), s("y")}},
	})
}
