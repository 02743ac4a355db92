package expr

import (
	"math"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Regression tests for the defects the kernel fuzz test
// (kernel_fuzz_test.go) found, one focused case each.

// TestKernelsSkipEmptyBatches: a function of constants computed at run
// time (the constant came out of IFNULL, not out of folding) was computed
// once even for a batch of no rows, and failed it.
func TestKernelsSkipEmptyBatches(t *testing.T) {
	alloc := checkedAlloc(t)
	in := []types.T{vchar}
	e := cast(fn("ifnull", vchar, litS("x"), col(0, vchar)), bigint)
	x, err := Compile(e, in)
	if err != nil {
		t.Fatal(err)
	}
	empty := makeBatch(alloc, in, nil, false)
	defer empty.Release()
	got, err := x.Eval(alloc, empty)
	if err != nil {
		t.Fatalf("%s over no rows: %v", e, err)
	}
	got.Release()
	one := makeBatch(alloc, in, [][]types.Datum{{null}}, false)
	defer one.Release()
	if got, err := x.Eval(alloc, one); err == nil || !IsRowError(err) {
		t.Fatalf("%s over a row: %v, want the cast's error", e, err)
		got.Release()
	}
}

// TestDecimalToDoubleIsCorrectlyRounded: decimal128's ToFloat64 multiplied
// by an inexact 10^-scale, so 0.07 became 0.07000000000000001.
func TestDecimalToDoubleIsCorrectlyRounded(t *testing.T) {
	w := types.DecimalT(38, 10)
	runCases(t, []types.T{dec102, w}, []tcase{
		{name: "scale 2", e: cast(col(0, dec102), double), rows: [][]types.Datum{{d("0.07", 2), null}, {d("28990.76", 2), null}, {d("-14.37", 2), null}},
			want: []types.Datum{f(0.07), f(28990.76), f(-14.37)}},
		{name: "past 2^53", e: cast(col(1, w), double), rows: [][]types.Datum{{null, d("8980188293134508189298426321.8505045833", 10)}},
			want: []types.Datum{f(8980188293134508189298426321.8505045833)}},
	})
}

// TestRegexpExtractPatterns: a constant invalid pattern failed Compile,
// so an empty batch, NULL strings or a CASE branch no row takes failed;
// and a varying pattern was cached by a string aliasing the batch's
// memory, so the next batch matched with the previous batch's pattern.
func TestRegexpExtractPatterns(t *testing.T) {
	in := []types.T{vchar, vchar}
	S, P := col(0, vchar), col(1, vchar)
	bad := fn("regexp_extract", vchar, S, litS("("))
	runCases(t, in, []tcase{
		{name: "invalid constant pattern over NULLs", e: bad, rows: [][]types.Datum{{null, null}}, want: []types.Datum{null}},
		{name: "invalid constant pattern in a branch not taken", rows: [][]types.Datum{{s("a"), null}},
			e: &plan.Case{Whens: []plan.When{{Cond: litB(false), Result: bad}}, Else: S, Typ: vchar}, want: []types.Datum{s("a")}},
		{name: "invalid constant pattern over a string", e: bad, rows: [][]types.Datum{{s("a"), null}}, err: "invalid pattern"},
	})

	alloc := checkedAlloc(t)
	// The pattern is computed (UPPER), into scratch memory reused by the
	// next batch.
	x, err := Compile(fn("regexp_extract", vchar, S, fn("upper", vchar, P)), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ s, p, want string }{{"AB", "a", "A"}, {"AB", "b", "B"}, {"AB", "c", ""}} {
		rec := makeBatch(alloc, in, [][]types.Datum{{s(c.s), s(c.p)}}, false)
		got, err := x.Eval(alloc, rec)
		if err != nil {
			t.Fatal(err)
		}
		if g := types.DatumAt(got, 0, vchar); c.want == "" && !g.Null || c.want != "" && g.S != c.want {
			t.Errorf("REGEXP_EXTRACT(%q, UPPER(%q)) = %s, want %q", c.s, c.p, types.Format(g, vchar), c.want)
		}
		got.Release()
		rec.Release()
	}
}

// TestInListWithAFailingConstant: IN computes a list of constants at
// Compile, so one that fails (CAST('x' AS BIGINT)) failed the compilation
// instead of the rows that reach it.
func TestInListWithAFailingConstant(t *testing.T) {
	A := col(0, bigint)
	e := &plan.In{Arg: A, List: []plan.Expr{litI(1), cast(litS("x"), bigint)}}
	runCases(t, []types.T{bigint}, []tcase{
		{name: "a match before it", e: e, rows: [][]types.Datum{{i(1)}}, want: []types.Datum{b(true)}},
		{name: "reached", e: e, rows: [][]types.Datum{{i(2)}}, err: "cannot cast 'x' to BIGINT"},
	})
}

// TestInListOfDoublesAndNaN: NaN equals nothing, yet a list of more than
// eight doubles, binary searched in cmp.Compare's order, found a NaN among
// its elements (a short list, scanned with ==, did not).
func TestInListOfDoublesAndNaN(t *testing.T) {
	X := col(0, double)
	list := func(n int) []plan.Expr {
		out := []plan.Expr{litF(math.NaN())}
		for k := 1; k < n; k++ {
			out = append(out, litF(float64(k)))
		}
		return out
	}
	rows := [][]types.Datum{{f(math.NaN())}, {f(3)}, {f(0.5)}}
	runCases(t, []types.T{double}, []tcase{
		{name: "short list", e: &plan.In{Arg: X, List: list(4)}, rows: rows, want: []types.Datum{b(false), b(true), b(false)}},
		{name: "long list", e: &plan.In{Arg: X, List: list(12)}, rows: rows, want: []types.Datum{b(false), b(true), b(false)}},
	})
}

// TestDecimalArithmeticNearTheLimit: a wide DECIMAL product whose 38
// digits need 127 bits was refused (the check allowed 126), and ROUND of
// a DECIMAL(38,10) near 10^28, whose result DECIMAL(29,0) holds it, failed
// on a 39-digit intermediate at the argument's scale.
func TestDecimalArithmeticNearTheLimit(t *testing.T) {
	w := types.DecimalT(38, 10)
	big := "-8980188293134508189298426321.8505045833"
	runCases(t, []types.T{w}, []tcase{
		{name: "wide product of 127 bits", e: bin(plan.OpMul, col(0, w), lit(d("1", 0), types.DecimalT(19, 0)), w),
			rows: [][]types.Datum{{d(big, 10)}}, want: []types.Datum{d(big, 10)}},
		{name: "round to 29 digits", e: fn("round", types.DecimalT(29, 0), col(0, w)),
			rows: [][]types.Datum{{d("-9999999999999999999999999999.9999999999", 10)}}, want: []types.Datum{d("-10000000000000000000000000000", 0)}},
	})
}

// TestStringsToNumbersAreExact: a string with a fraction or exponent was
// cast to BIGINT through a double (losing digits past 2^53), and to
// DECIMAL through decimal128.FromString, which rounds through a binary
// float of a few dozen bits (8.004999999999999 became 8.01); doubles went
// to DECIMAL through the same FromString.
func TestStringsToNumbersAreExact(t *testing.T) {
	S := col(0, vchar)
	one := func(v string) [][]types.Datum { return [][]types.Datum{{s(v)}} }
	runCases(t, []types.T{vchar}, []tcase{
		{name: "bigint from a long fraction", e: cast(S, bigint), rows: one("4377096645681362900.0000000000"), want: []types.Datum{i(4377096645681362900)}},
		{name: "bigint max with a fraction", e: cast(S, bigint), rows: one("9223372036854775807.4"), want: []types.Datum{i(math.MaxInt64)}},
		{name: "bigint min with a fraction", e: cast(S, bigint), rows: one("-9223372036854775808.4"), want: []types.Datum{i(math.MinInt64)}},
		{name: "bigint rounding past max", e: cast(S, bigint), rows: one("9223372036854775807.5"), err: "cannot cast"},
		{name: "bigint from an exponent", e: cast(S, bigint), rows: one("12345678901234567.5e1"), want: []types.Datum{i(123456789012345675)}},
		{name: "bigint from a tiny exponent", e: cast(S, bigint), rows: one("5e-324197"), want: []types.Datum{i(0)}},
		{name: "bigint from a huge exponent", e: cast(S, bigint), rows: one("1e99999999999999999999"), err: "cannot cast"},
		{name: "bigint from too many digits and a tiny exponent", e: cast(S, bigint), rows: one("92233720368547758061e-400"), want: []types.Datum{i(0)}},
		{name: "bigint from too many digits", e: cast(S, bigint), rows: one("92233720368547758061"), err: "cannot cast"},
		{name: "decimal just below a half", e: cast(S, dec102), rows: one("8.004999999999999"), want: []types.Datum{d("8.00", 2)}},
		{name: "decimal half", e: cast(S, dec102), rows: one("-8.005"), want: []types.Datum{d("-8.01", 2)}},
		{name: "decimal too wide", e: cast(S, dec102), rows: one("12345678901"), err: "cannot cast '12345678901' to DECIMAL(10,2)"},
		{name: "decimal from a double below a half", e: cast(litF(8.004999999999999), dec102), want: []types.Datum{d("8.00", 2)}},
		{name: "decimal from a double half", e: cast(litF(1.005), dec102), want: []types.Datum{d("1.01", 2)}},
	})
}

// TestRoundDoubles: ROUND of a double kept x for more than 15 digits
// (ROUND(1.234567e-20, 22) is 1.23e-20), made ±Inf 0 past 308 digits, and
// rounded x times 10^d, not x's digits. BIGINT ROUND to -19 digits gave 0
// where the result, 10^19, overflows.
func TestRoundDoubles(t *testing.T) {
	X, D := col(0, double), col(1, bigint)
	row := func(x float64, d int64) []types.Datum { return []types.Datum{f(x), i(d)} }
	r := fn("round", double, X, D)
	runCases(t, []types.T{double, bigint}, []tcase{
		{name: "past 15 digits", e: r, rows: [][]types.Datum{row(1.234567e-20, 22)}, want: []types.Datum{f(1.23e-20)}},
		{name: "its digits", e: r, rows: [][]types.Datum{row(546461.35, 1), row(2.675, 2), row(-2.5, 0), row(1.005, 2)},
			want: []types.Datum{f(546461.4), f(2.68), f(-3), f(1.01)}},
		{name: "infinities and NaN stay", e: r, rows: [][]types.Datum{row(math.Inf(1), -357), row(math.Inf(-1), 400), row(math.NaN(), 2)},
			want: []types.Datum{f(math.Inf(1)), f(math.Inf(-1)), f(math.NaN())}},
		{name: "before the point", e: r, rows: [][]types.Datum{row(1250, -2), row(-1.5e300, -300), row(4e-300, 299)},
			want: []types.Datum{f(1300), f(-2e300), f(0)}},
		{name: "overflow", e: r, rows: [][]types.Datum{row(1.7e308, -308)}, err: "DOUBLE value is out of range in 'ROUND(1.7e+308, -308)'"},
		{name: "bigint to -19 digits", e: fn("round", bigint, col(1, bigint), litI(-19)), rows: [][]types.Datum{row(0, 5e18)}, err: "out of range"},
		{name: "bigint to -19 digits, small", e: fn("round", bigint, col(1, bigint), litI(-19)), rows: [][]types.Datum{row(0, 4999999999999999999)}, want: []types.Datum{i(0)}},
	})
}

// TestIntervalFirstKeepsEvaluationOrder: INTERVAL + TIMESTAMP evaluated
// the timestamp first (the compiler swapped the operands), so a row where
// both fail reported the second operand's error.
func TestIntervalFirstKeepsEvaluationOrder(t *testing.T) {
	iv := bin(plan.OpMul, col(0, bigint), lit(i(types.MsPerDay), ivl), ivl)
	e := bin(plan.OpAdd, iv, cast(litS("x"), ts3), ts3)
	runCases(t, []types.T{bigint}, []tcase{
		{name: "the interval fails first", e: e, rows: [][]types.Datum{{i(math.MaxInt64)}}, err: "INTERVAL value is out of range"},
	})
}
