package expr

import (
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

func TestIntegerArithmetic(t *testing.T) {
	in := []types.T{bigint, bigint}
	a, b := col(0, bigint), col(1, bigint)
	rows := [][]types.Datum{{i(7), i(2)}, {i(-7), i(2)}, {null, i(1)}, {i(5), null}, {i(3), i(0)}}
	max := i(math.MaxInt64)
	runCases(t, in, []tcase{
		{name: "add", e: bin(plan.OpAdd, a, b, bigint), rows: rows, want: []types.Datum{i(9), i(-5), null, null, i(3)}},
		{name: "sub", e: bin(plan.OpSub, a, b, bigint), rows: rows, want: []types.Datum{i(5), i(-9), null, null, i(3)}},
		{name: "mul", e: bin(plan.OpMul, a, b, bigint), rows: rows, want: []types.Datum{i(14), i(-14), null, null, i(0)}},
		{name: "div", e: bin(plan.OpIntDiv, a, b, bigint), rows: rows, want: []types.Datum{i(3), i(-3), null, null, null}},
		{name: "mod", e: bin(plan.OpMod, a, b, bigint), rows: rows, want: []types.Datum{i(1), i(-1), null, null, null}},
		{name: "col+const", e: bin(plan.OpAdd, a, litI(10), bigint), rows: rows, want: []types.Datum{i(17), i(3), null, i(15), i(13)}},
		{name: "const-col", e: bin(plan.OpSub, litI(10), a, bigint), rows: rows, want: []types.Datum{i(3), i(17), null, i(5), i(7)}},
		{name: "const*col", e: bin(plan.OpMul, litI(3), a, bigint), rows: rows, want: []types.Datum{i(21), i(-21), null, i(15), i(9)}},
		{name: "col DIV const 0", e: bin(plan.OpIntDiv, a, litI(0), bigint), rows: rows, want: []types.Datum{null, null, null, null, null}},
		{name: "neg", e: &plan.Unary{Op: plan.OpNeg, Arg: a, Typ: bigint}, rows: rows, want: []types.Datum{i(-7), i(7), null, i(-5), i(-3)}},
		{name: "null const", e: bin(plan.OpAdd, a, litNull(bigint), bigint), rows: rows, want: []types.Datum{null, null, null, null, null}},
		{name: "all null", e: bin(plan.OpAdd, a, b, bigint), rows: [][]types.Datum{{null, null}, {null, null}}, want: []types.Datum{null, null}},
		{name: "add overflow", e: bin(plan.OpAdd, a, b, bigint), rows: [][]types.Datum{{i(1), i(1)}, {max, i(1)}},
			err: "BIGINT value is out of range in '9223372036854775807 + 1'"},
		{name: "sub overflow", e: bin(plan.OpSub, a, b, bigint), rows: [][]types.Datum{{i(math.MinInt64), i(1)}}, err: "out of range"},
		{name: "mul overflow", e: bin(plan.OpMul, a, litI(2), bigint), rows: [][]types.Datum{{max, null}}, err: "'9223372036854775807 * 2'"},
		{name: "mul overflow col", e: bin(plan.OpMul, a, b, bigint), rows: [][]types.Datum{{i(1 << 32), i(1 << 31)}}, err: "out of range"},
		{name: "mul no overflow", e: bin(plan.OpMul, a, b, bigint), rows: [][]types.Datum{{i(-1 << 32), i(1 << 31)}, {i(-1), i(math.MinInt64 + 1)}},
			want: []types.Datum{i(math.MinInt64), i(math.MaxInt64)}},
		{name: "overflow under NULL ignored", e: bin(plan.OpAdd, a, b, bigint), rows: [][]types.Datum{{max, null}}, want: []types.Datum{null}},
		{name: "div overflow", e: bin(plan.OpIntDiv, a, b, bigint), rows: [][]types.Datum{{i(math.MinInt64), i(-1)}}, err: "out of range"},
		{name: "mod min -1", e: bin(plan.OpMod, a, b, bigint), rows: [][]types.Datum{{i(math.MinInt64), i(-1)}}, want: []types.Datum{i(0)}},
		{name: "neg overflow", e: &plan.Unary{Op: plan.OpNeg, Arg: a, Typ: bigint}, rows: [][]types.Datum{{i(math.MinInt64), null}}, err: "out of range"},
		{name: "const fold", e: bin(plan.OpAdd, litI(1), bin(plan.OpMul, litI(2), litI(3), bigint), bigint), rows: rows,
			want: []types.Datum{i(7), i(7), i(7), i(7), i(7)}},
	})
}

func TestFloatArithmetic(t *testing.T) {
	in := []types.T{double, double}
	a, b := col(0, double), col(1, double)
	rows := [][]types.Datum{{f(7), f(2)}, {f(-1.5), f(0.5)}, {null, f(1)}, {f(1), f(0)}}
	runCases(t, in, []tcase{
		{name: "add", e: bin(plan.OpAdd, a, b, double), rows: rows, want: []types.Datum{f(9), f(-1), null, f(1)}},
		{name: "sub", e: bin(plan.OpSub, a, b, double), rows: rows, want: []types.Datum{f(5), f(-2), null, f(1)}},
		{name: "mul", e: bin(plan.OpMul, a, b, double), rows: rows, want: []types.Datum{f(14), f(-0.75), null, f(0)}},
		{name: "div", e: bin(plan.OpDiv, a, b, double), rows: rows, want: []types.Datum{f(3.5), f(-3), null, null}},
		{name: "mod", e: bin(plan.OpMod, a, b, double), rows: rows, want: []types.Datum{f(1), f(-0), null, null}},
		{name: "intdiv", e: bin(plan.OpIntDiv, a, b, bigint), rows: rows, want: []types.Datum{i(3), i(-3), null, null}},
		{name: "const-col", e: bin(plan.OpSub, litF(1), a, double), rows: rows, want: []types.Datum{f(-6), f(2.5), null, f(0)}},
		{name: "col*const", e: bin(plan.OpMul, a, litF(2), double), rows: rows, want: []types.Datum{f(14), f(-3), null, f(2)}},
		{name: "neg", e: &plan.Unary{Op: plan.OpNeg, Arg: a, Typ: double}, rows: rows, want: []types.Datum{f(-7), f(1.5), null, f(-1)}},
	})
}

func TestDecimalArithmetic(t *testing.T) {
	d52 := types.DecimalT(5, 2)
	in := []types.T{d52, d52, types.DecimalT(4, 1)}
	a, b, c := col(0, d52), col(1, d52), col(2, types.DecimalT(4, 1))
	rows := [][]types.Datum{{d("1.25", 2), d("2.50", 2), d("1.5", 1)}, {d("-3.00", 2), d("0.01", 2), d("-0.5", 1)}, {null, d("1", 2), d("1", 1)}}
	runCases(t, in, []tcase{
		{name: "add", e: bin(plan.OpAdd, a, b, types.DecimalT(6, 2)), rows: rows, want: []types.Datum{d("3.75", 2), d("-2.99", 2), null}},
		{name: "sub", e: bin(plan.OpSub, a, b, types.DecimalT(6, 2)), rows: rows, want: []types.Datum{d("-1.25", 2), d("-3.01", 2), null}},
		{name: "mul exact", e: bin(plan.OpMul, a, c, types.DecimalT(9, 3)), rows: rows, want: []types.Datum{d("1.875", 3), d("1.500", 3), null}},
		{name: "mul rounds", e: bin(plan.OpMul, a, c, types.DecimalT(9, 2)), rows: rows, want: []types.Datum{d("1.88", 2), d("1.50", 2), null}},
		{name: "mod", e: bin(plan.OpMod, a, b, d52), rows: rows, want: []types.Datum{d("1.25", 2), d("0", 2), null}},
		{name: "div", e: bin(plan.OpIntDiv, b, a, bigint), rows: rows, want: []types.Datum{i(2), i(0), null}},
		{name: "neg", e: &plan.Unary{Op: plan.OpNeg, Arg: a, Typ: d52}, rows: rows, want: []types.Datum{d("-1.25", 2), d("3.00", 2), null}},
		{name: "overflow", e: bin(plan.OpAdd, a, b, d52), rows: [][]types.Datum{{d("999.99", 2), d("0.01", 2), null}},
			err: "DECIMAL value is out of range in '999.99 + 0.01'"},
		{name: "div by zero", e: bin(plan.OpMod, a, b, d52), rows: [][]types.Datum{{d("1", 2), d("0", 2), null}}, want: []types.Datum{null}},
	})
	// Wide operands take the math/big path.
	w := types.DecimalT(38, 10)
	runCases(t, []types.T{w, w}, []tcase{
		{name: "wide mul", e: bin(plan.OpMul, col(0, w), col(1, w), w),
			rows: [][]types.Datum{{d("12345678901234567.5", 10), d("2.0000000001", 10)}},
			want: []types.Datum{d("24691357803703702.8901234568", 10)}},
		{name: "wide mul overflow", e: bin(plan.OpMul, col(0, w), col(1, w), w),
			rows: [][]types.Datum{{d("9999999999999999999999999999", 10), d("10", 10)}}, err: "out of range"},
	})
}

func TestTemporalArithmetic(t *testing.T) {
	in := []types.T{ts3, dateT, ivl}
	tc, dc, ic := col(0, ts3), col(1, dateT), col(2, ivl)
	day, sec := i(types.MsPerDay), i(1500)
	rows := [][]types.Datum{{tsd("2024-01-01 10:00:00"), dd("2024-01-31"), day}, {null, null, null}}
	runCases(t, in, []tcase{
		{name: "ts+interval", e: bin(plan.OpAdd, tc, ic, ts3), rows: rows, want: []types.Datum{tsd("2024-01-02 10:00:00"), null}},
		{name: "ts-interval const", e: bin(plan.OpSub, tc, lit(sec, ivl), ts3), rows: rows, want: []types.Datum{tsd("2024-01-01 09:59:58.5"), null}},
		{name: "date+days", e: bin(plan.OpAdd, dc, ic, dateT), rows: rows, want: []types.Datum{dd("2024-02-01"), null}},
		{name: "interval+date", e: bin(plan.OpAdd, ic, dc, dateT), rows: rows, want: []types.Datum{dd("2024-02-01"), null}},
		{name: "date-ms", e: bin(plan.OpSub, dc, lit(sec, ivl), ts3), rows: rows, want: []types.Datum{tsd("2024-01-30 23:59:58.5"), null}},
		{name: "ts-ts", e: bin(plan.OpSub, tc, lit(tsd("2024-01-01 00:00:00"), ts3), ivl), rows: rows, want: []types.Datum{i(10 * types.MsPerHour), null}},
	})
}

// TestTemporalArithmeticRange checks that date arithmetic whose result
// leaves the years 0000 to 9999 is an out-of-range error (it wrapped, or
// printed five-digit years, once), on every path: constant and column
// intervals, DATE and TIMESTAMP results, the interval first, and that a
// NULL row never fails.
func TestTemporalArithmeticRange(t *testing.T) {
	in := []types.T{ts3, dateT, ivl}
	tc, dc, ic := col(0, ts3), col(1, dateT), col(2, ivl)
	day := i(types.MsPerDay)
	end := [][]types.Datum{{tsd("9999-12-31 23:59:59.999"), dd("9999-12-31"), day}, {null, null, null}}
	start := [][]types.Datum{{tsd("0000-01-01 00:00:00"), dd("0000-01-01"), day}, {null, null, null}}
	huge := [][]types.Datum{{tsd("2024-01-01 00:00:00"), dd("2024-01-01"), i(math.MaxInt64)}, {tsd("2024-01-01 00:00:00"), dd("2024-01-01"), i(math.MinInt64)}}
	const oor = "value is out of range in"
	runCases(t, in, []tcase{
		{name: "ts+1ms past the end", e: bin(plan.OpAdd, tc, lit(i(1), ivl), ts3), rows: end, err: "TIMESTAMP " + oor + " 'TIMESTAMP '9999-12-31 23:59:59.999' + INTERVAL '1' MILLISECOND'"},
		{name: "interval+ts past the end", e: bin(plan.OpAdd, ic, tc, ts3), rows: end, err: oor},
		{name: "ts-day before the start", e: bin(plan.OpSub, tc, ic, ts3), rows: start, err: oor},
		{name: "ts at the end", e: bin(plan.OpAdd, tc, lit(i(0), ivl), ts3), rows: end, want: []types.Datum{tsd("9999-12-31 23:59:59.999"), null}},
		{name: "ts+huge", e: bin(plan.OpAdd, tc, ic, ts3), rows: huge, err: oor},
		{name: "ts-huge", e: bin(plan.OpSub, tc, ic, ts3), rows: huge, err: oor},
		{name: "ts+1e15ms (year 33658)", e: bin(plan.OpAdd, tc, lit(i(1e15), ivl), ts3), rows: start[:1], err: oor},
		{name: "date+day past the end", e: bin(plan.OpAdd, dc, ic, dateT), rows: end, err: "DATE " + oor + " 'DATE '9999-12-31' + INTERVAL '1' DAY'"},
		{name: "date-day before the start", e: bin(plan.OpSub, dc, ic, dateT), rows: start, err: oor},
		{name: "date+huge", e: bin(plan.OpAdd, dc, ic, dateT), rows: huge, err: oor},
		{name: "date+ms past the end", e: bin(plan.OpAdd, dc, ic, ts3), rows: end, err: oor},
		{name: "date-huge as timestamp", e: bin(plan.OpSub, dc, ic, ts3), rows: huge, err: oor},
		{name: "only NULL rows past the end", e: bin(plan.OpAdd, tc, lit(i(1), ivl), ts3), rows: end[1:], want: []types.Datum{null}},
		{name: "from_unixtime at the end", e: fn("from_unixtime", ts0, litI(253402300799)), want: []types.Datum{tsd("9999-12-31 23:59:59")}},
		{name: "from_unixtime past the end", e: fn("from_unixtime", ts0, litI(253402300800)), err: oor},
		{name: "from_unixtime before the start", e: fn("from_unixtime", ts0, litI(-62167219201)), err: oor},
		{name: "rounding past the end", e: cast(tc, ts0), rows: end, err: "TIMESTAMP " + oor},
		{name: "rounding a string past the end", e: cast(litS("9999-12-31 23:59:59.5"), ts0), err: "cannot cast '9999-12-31 23:59:59.5' to TIMESTAMP"},
	})
}
