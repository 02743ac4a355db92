package expr

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

func TestCompare(t *testing.T) {
	in := []types.T{bigint, bigint, double, vchar, dec102, dateT, boolT, ts3}
	rows := [][]types.Datum{
		{i(1), i(2), f(1.5), s("abc"), d("1.00", 2), dd("2024-01-01"), b(true), tsd("2024-01-01 00:00:00")},
		{i(2), i(2), f(-1), s("ABC"), d("2.50", 2), dd("2023-12-31"), b(false), tsd("2024-01-01 00:00:00.001")},
		{i(3), null, null, null, null, null, null, null},
	}
	T, F := b(true), b(false)
	ops := []struct {
		op   plan.BinOp
		want []types.Datum // c0 op c1
	}{
		{plan.OpEq, []types.Datum{F, T, null}},
		{plan.OpNe, []types.Datum{T, F, null}},
		{plan.OpLt, []types.Datum{T, F, null}},
		{plan.OpLe, []types.Datum{T, T, null}},
		{plan.OpGt, []types.Datum{F, F, null}},
		{plan.OpGe, []types.Datum{F, T, null}},
		{plan.OpNullSafeEq, []types.Datum{F, T, F}},
	}
	var cases []tcase
	for _, o := range ops {
		cases = append(cases, tcase{name: "int " + o.op.String(), e: cmpE(o.op, col(0, bigint), col(1, bigint)), rows: rows, want: o.want})
	}
	// Column against constant, through Select's one-pass path too.
	constWant := map[plan.BinOp][]types.Datum{
		plan.OpEq: {F, T, F}, plan.OpNe: {T, F, T}, plan.OpLt: {T, F, F},
		plan.OpLe: {T, T, F}, plan.OpGt: {F, F, T}, plan.OpGe: {F, T, T},
	}
	for op, want := range constWant {
		cases = append(cases,
			tcase{name: "int const " + op.String(), e: cmpE(op, col(0, bigint), litI(2)), rows: rows, want: want},
			tcase{name: "double const " + op.String(), e: cmpE(op, col(2, double), litF(-1)), rows: rows[:2],
				want: []types.Datum{want[2], want[1]}},
			tcase{name: "date const " + op.String(), e: cmpE(op, col(5, dateT), lit(dd("2023-12-31"), dateT)), rows: rows[:2],
				want: []types.Datum{want[2], want[1]}},
		)
	}
	cases = append(cases,
		tcase{name: "col > const", e: cmpE(plan.OpGt, col(0, bigint), litI(1)), rows: rows, want: []types.Datum{F, T, T}},
		tcase{name: "const < col", e: cmpE(plan.OpLt, litI(1), col(0, bigint)), rows: rows, want: []types.Datum{F, T, T}},
		tcase{name: "col = null", e: cmpE(plan.OpEq, col(0, bigint), litNull(bigint)), rows: rows, want: []types.Datum{null, null, null}},
		tcase{name: "null <=> col", e: cmpE(plan.OpNullSafeEq, litNull(bigint), col(1, bigint)), rows: rows, want: []types.Datum{F, F, T}},
		tcase{name: "double >= const", e: cmpE(plan.OpGe, col(2, double), litF(1.5)), rows: rows, want: []types.Datum{T, F, null}},
		tcase{name: "string binary", e: cmpE(plan.OpLt, col(3, vchar), litS("abc")), rows: rows, want: []types.Datum{F, T, null}},
		tcase{name: "string eq", e: cmpE(plan.OpEq, col(3, vchar), litS("ABC")), rows: rows, want: []types.Datum{F, T, null}},
		tcase{name: "decimal", e: cmpE(plan.OpGt, col(4, dec102), lit(d("1.5", 2), dec102)), rows: rows, want: []types.Datum{F, T, null}},
		tcase{name: "date", e: cmpE(plan.OpLt, col(5, dateT), lit(dd("2024-01-01"), dateT)), rows: rows, want: []types.Datum{F, T, null}},
		tcase{name: "bool", e: cmpE(plan.OpGt, col(6, boolT), litB(false)), rows: rows, want: []types.Datum{T, F, null}},
		tcase{name: "timestamp", e: cmpE(plan.OpGt, col(7, ts3), lit(tsd("2024-01-01 00:00:00"), ts3)), rows: rows, want: []types.Datum{F, T, null}},
		tcase{name: "string <=>", e: cmpE(plan.OpNullSafeEq, col(3, vchar), col(3, vchar)), rows: rows, want: []types.Datum{T, T, T}},
		tcase{name: "const fold", e: cmpE(plan.OpLt, litS("a"), litS("b")), rows: rows, want: []types.Datum{T, T, T}},
	)
	runCases(t, in, cases)
}

func TestLogic(t *testing.T) {
	in := []types.T{boolT, boolT, bigint}
	a, c := col(0, boolT), col(1, boolT)
	T, F := b(true), b(false)
	// Every combination of TRUE, FALSE and NULL.
	vals := []types.Datum{T, F, null}
	var rows [][]types.Datum
	for _, x := range vals {
		for _, y := range vals {
			rows = append(rows, []types.Datum{x, y, i(0)})
		}
	}
	and := []types.Datum{T, F, null, F, F, F, null, F, null}
	or := []types.Datum{T, T, T, T, F, null, T, null, null}
	x := col(2, bigint)
	// 10 DIV x overflows nowhere, but 1 - MinInt64 does: guarded rows only.
	guard := cmpE(plan.OpGt, bin(plan.OpSub, litI(1), x, bigint), litI(0))
	runCases(t, in, []tcase{
		{name: "and", e: &plan.And{Args: []plan.Expr{a, c}}, rows: rows, want: and},
		{name: "or", e: &plan.Or{Args: []plan.Expr{a, c}}, rows: rows, want: or},
		{name: "not", e: &plan.Not{Arg: a}, rows: rows, want: []types.Datum{F, F, F, T, T, T, null, null, null}},
		{name: "is null", e: &plan.IsNull{Arg: a}, rows: rows, want: []types.Datum{F, F, F, F, F, F, T, T, T}},
		{name: "is not null", e: &plan.IsNull{Arg: c, Negated: true}, rows: rows, want: []types.Datum{T, T, F, T, T, F, T, T, F}},
		{name: "and3", e: &plan.And{Args: []plan.Expr{a, c, litB(true)}}, rows: rows, want: and},
		{name: "or false", e: &plan.Or{Args: []plan.Expr{a, litB(false)}}, rows: rows, want: []types.Datum{T, T, T, F, F, F, null, null, null}},
		{name: "and guards error", e: &plan.And{Args: []plan.Expr{cmpE(plan.OpGt, x, litI(0)), guard}},
			rows: [][]types.Datum{{T, T, i(5)}, {T, T, i(-9223372036854775808)}, {T, T, i(0)}}, want: []types.Datum{F, F, F}},
		{name: "or guards error", e: &plan.Or{Args: []plan.Expr{cmpE(plan.OpLt, x, litI(0)), guard}},
			rows: [][]types.Datum{{T, T, i(-9223372036854775808)}, {T, T, i(0)}}, want: []types.Datum{T, T}},
		{name: "and unguarded error", e: &plan.And{Args: []plan.Expr{cmpE(plan.OpLt, x, litI(0)), guard}},
			rows: [][]types.Datum{{T, T, i(-9223372036854775808)}}, err: "out of range"},
	})
}

func TestInAndLike(t *testing.T) {
	in := []types.T{bigint, vchar, bigint}
	x, str, y := col(0, bigint), col(1, vchar), col(2, bigint)
	T, F := b(true), b(false)
	rows := [][]types.Datum{{i(1), s("hello"), i(1)}, {i(5), s("Hello"), i(7)}, {null, null, null}, {i(9), s("h%llo"), i(2)}}
	var long []plan.Expr
	for k := int64(10); k < 30; k++ {
		long = append(long, litI(k))
	}
	long = append(long, litI(9))
	runCases(t, in, []tcase{
		{name: "in", e: &plan.In{Arg: x, List: []plan.Expr{litI(1), litI(9)}}, rows: rows, want: []types.Datum{T, F, null, T}},
		{name: "not in", e: &plan.In{Arg: x, List: []plan.Expr{litI(1), litI(9)}, Negated: true}, rows: rows, want: []types.Datum{F, T, null, F}},
		{name: "in with null", e: &plan.In{Arg: x, List: []plan.Expr{litI(1), litNull(bigint)}}, rows: rows, want: []types.Datum{T, null, null, null}},
		{name: "not in with null", e: &plan.In{Arg: x, List: []plan.Expr{litI(1), litNull(bigint)}, Negated: true}, rows: rows, want: []types.Datum{F, null, null, null}},
		{name: "in long", e: &plan.In{Arg: x, List: long}, rows: rows, want: []types.Datum{F, F, null, T}},
		{name: "in columns", e: &plan.In{Arg: x, List: []plan.Expr{y, litI(5)}}, rows: rows, want: []types.Datum{T, T, null, F}},
		{name: "in strings", e: &plan.In{Arg: str, List: []plan.Expr{litS("hello"), litS("x")}}, rows: rows, want: []types.Datum{T, F, null, F}},
		{name: "in double", e: &plan.In{Arg: cast(x, double), List: []plan.Expr{litF(5), litF(0.5)}}, rows: rows, want: []types.Datum{F, T, null, F}},
		{name: "in decimal", e: &plan.In{Arg: cast(x, dec102), List: []plan.Expr{lit(d("9", 2), dec102)}}, rows: rows, want: []types.Datum{F, F, null, T}},
		{name: "in bool", e: &plan.In{Arg: cmpE(plan.OpGt, x, litI(3)), List: []plan.Expr{litB(true)}}, rows: rows, want: []types.Datum{F, T, null, T}},
		{name: "in date", e: &plan.In{Arg: lit(dd("2024-01-01"), dateT), List: []plan.Expr{lit(dd("2024-01-01"), dateT), litNull(dateT)}}, rows: rows,
			want: []types.Datum{T, T, T, T}},
		{name: "like prefix", e: &plan.Like{Arg: str, Pattern: litS("he%")}, rows: rows, want: []types.Datum{T, F, null, F}},
		{name: "like suffix", e: &plan.Like{Arg: str, Pattern: litS("%llo")}, rows: rows, want: []types.Datum{T, T, null, T}},
		{name: "like contains", e: &plan.Like{Arg: str, Pattern: litS("%ell%")}, rows: rows, want: []types.Datum{T, T, null, F}},
		{name: "like exact", e: &plan.Like{Arg: str, Pattern: litS("Hello")}, rows: rows, want: []types.Datum{F, T, null, F}},
		{name: "like underscore", e: &plan.Like{Arg: str, Pattern: litS("_e_lo")}, rows: rows, want: []types.Datum{T, T, null, F}},
		{name: "like general", e: &plan.Like{Arg: str, Pattern: litS("h%l_o")}, rows: rows, want: []types.Datum{T, F, null, T}},
		{name: "like escape", e: &plan.Like{Arg: str, Pattern: litS(`h\%%`)}, rows: rows, want: []types.Datum{F, F, null, T}},
		{name: "like custom escape", e: &plan.Like{Arg: str, Pattern: litS(`h!%llo`), Escape: '!'}, rows: rows, want: []types.Datum{F, F, null, T}},
		{name: "not like", e: &plan.Like{Arg: str, Pattern: litS("%"), Negated: true}, rows: rows, want: []types.Datum{F, F, null, F}},
		{name: "like column pattern", e: &plan.Like{Arg: litS("hello"), Pattern: str}, rows: rows, want: []types.Datum{T, F, null, T}},
	})
}

func TestLikeMatcher(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"", "", true}, {"", "a", false}, {"%", "", true}, {"_", "é", true}, {"_", "ab", false},
		{"a%b%c", "aXbYc", true}, {"a%b%c", "aXbY", false}, {"%a%a%a", "aaXaa", true},
		{"%_é", "xé", true}, {"a_%", "a", false}, {"%%x", "x", true}, {`\`, `\`, true},
		{"%abc%def", "abcabcdef", true}, {"%b%", "ac", false},
	} {
		if got := compileLike(c.pat, '\\').match(c.s); got != c.want {
			t.Errorf("%q LIKE %q = %v, want %v", c.s, c.pat, got, c.want)
		}
	}
}

func TestCase(t *testing.T) {
	in := []types.T{bigint, vchar}
	x, str := col(0, bigint), col(1, vchar)
	rows := [][]types.Datum{{i(0), s("a")}, {i(5), s("bb")}, {null, null}, {i(-4), s("ccc")}}
	div := bin(plan.OpIntDiv, litI(100), x, bigint)
	// x * MaxInt64 overflows unless x is 0, 1 or NULL: only a CASE that
	// evaluates branches lazily avoids the error.
	risky := bin(plan.OpMul, x, litI(9223372036854775807), bigint)
	runCases(t, in, []tcase{
		{name: "searched", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpGt, x, litI(0)), Result: litS("pos")},
			{Cond: cmpE(plan.OpLt, x, litI(0)), Result: litS("neg")},
		}, Else: litS("zero"), Typ: vchar}, rows: rows, want: []types.Datum{s("zero"), s("pos"), s("zero"), s("neg")}},
		{name: "null else", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpEq, x, litI(5)), Result: str},
		}, Else: litNull(vchar), Typ: vchar}, rows: rows, want: []types.Datum{null, s("bb"), null, null}},
		{name: "guards division", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpEq, x, litI(0)), Result: litI(-1)},
		}, Else: div, Typ: bigint}, rows: rows, want: []types.Datum{i(-1), i(20), null, i(-25)}},
		{name: "short circuit", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpNe, x, litI(0)), Result: litI(7)},
		}, Else: risky, Typ: bigint}, rows: rows, want: []types.Datum{i(0), i(7), null, i(7)}},
		{name: "later cond guarded", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpLe, x, litI(0)), Result: litI(0)},
			{Cond: cmpE(plan.OpGt, risky, litI(0)), Result: litI(1)},
		}, Else: litI(2), Typ: bigint}, rows: [][]types.Datum{{i(0), null}, {i(1), null}, {i(-3), null}}, want: []types.Datum{i(0), i(1), i(0)}},
		{name: "branch error", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpGt, x, litI(0)), Result: risky},
		}, Else: litI(0), Typ: bigint}, rows: rows, err: "out of range"},
		{name: "all else", e: &plan.Case{Whens: []plan.When{
			{Cond: litB(false), Result: litI(1)},
		}, Else: x, Typ: bigint}, rows: rows, want: []types.Datum{i(0), i(5), null, i(-4)}},
		{name: "constant failure not taken", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpGt, x, litI(100)), Result: cast(litS("x"), bigint)},
		}, Else: litI(0), Typ: bigint}, rows: rows, want: []types.Datum{i(0), i(0), i(0), i(0)}},
		{name: "constant failure taken", e: &plan.Case{Whens: []plan.When{
			{Cond: cmpE(plan.OpGt, x, litI(1)), Result: cast(litS("x"), bigint)},
		}, Else: litI(0), Typ: bigint}, rows: rows, err: "cannot cast 'x' to BIGINT"},
	})
}
