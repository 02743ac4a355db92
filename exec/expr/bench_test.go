package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// BenchmarkKernels measures single expressions over a 4096-row batch of
// (a BIGINT with 10% NULLs, b BIGINT, s VARCHAR, d DOUBLE) and reports
// rows/s.
func BenchmarkKernels(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in := []types.T{bigint, bigint, vchar, double}
	rows := make([][]types.Datum, 4096)
	for k := range rows {
		a := i(int64(k))
		if k%10 == 0 {
			a = null
		}
		rows[k] = []types.Datum{a, i(int64(k * 7 % 1000)), s(fmt.Sprintf("item-%d", k%50)), f(float64(k) * 0.5)}
	}
	rec := types.BuildRecord(alloc, []string{"a", "b", "s", "d"}, in, rows)
	defer rec.Release()
	A, B, S, D := col(0, bigint), col(1, bigint), col(2, vchar), col(3, double)
	for _, c := range []struct {
		name   string
		e      plan.Expr
		filter bool
	}{
		{"a+b", bin(plan.OpAdd, A, B, bigint), false},
		{"a-b", bin(plan.OpSub, A, B, bigint), false},
		{"b-3", bin(plan.OpSub, B, litI(3), bigint), false},
		{"a*b", bin(plan.OpMul, A, B, bigint), false},
		{"b*3", bin(plan.OpMul, B, litI(3), bigint), false},
		{"-b", &plan.Unary{Op: plan.OpNeg, Arg: B, Typ: bigint}, false},
		{"d*1.5", bin(plan.OpMul, D, litF(1.5), double), false},
		{"b>500 (select)", cmpE(plan.OpGt, B, litI(500)), true},
		{"a>b AND b<900 (select)", &plan.And{Args: []plan.Expr{cmpE(plan.OpGt, A, B), cmpE(plan.OpLt, B, litI(900))}}, true},
		{"s LIKE 'item-1%' (select)", &plan.Like{Arg: S, Pattern: litS("item-1%")}, true},
		{"b IN (1,2,3,...)", &plan.In{Arg: B, List: []plan.Expr{litI(1), litI(2), litI(3), litI(5), litI(8), litI(13), litI(21), litI(34), litI(55), litI(89)}}, false},
		{"upper(s)", fn("upper", vchar, S), false},
		{"reverse(s)", fn("reverse", vchar, S), false},
		{"char_length(s)", fn("char_length", bigint, S), false},
		{"concat(s,s)", fn("concat", vchar, S, S), false},
		{"replace(s)", fn("replace", vchar, S, litS("item"), litS("x")), false},
		{"lpad(s)", fn("lpad", vchar, S, litI(12), litS("*")), false},
		{"substring(s)", fn("substring", vchar, S, litI(2), litI(4)), false},
		{"nullif(a,b)", fn("nullif", bigint, A, B), false},
		{"coalesce(a,b)", fn("coalesce", bigint, A, B), false},
		{"greatest(a,b)", fn("greatest", bigint, A, B), false},
		{"CAST(b AS VARCHAR)", cast(B, vchar), false},
		{"CASE", &plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpLt, B, litI(300)), Result: litS("low")},
			{Cond: cmpE(plan.OpLt, B, litI(700)), Result: litS("mid")}}, Else: S, Typ: vchar}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			x, err := Compile(c.e, in)
			if err != nil {
				b.Fatal(err)
			}
			sel := make([]int32, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				if c.filter {
					if sel, err = x.Select(alloc, rec, sel); err != nil {
						b.Fatal(err)
					}
					continue
				}
				out, err := x.Eval(alloc, rec)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(4096*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkTimestampInterval measures TIMESTAMP + INTERVAL, whose kernel
// checks each result against the supported range.
func BenchmarkTimestampInterval(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in := []types.T{ts3}
	rows := make([][]types.Datum, 4096)
	for k := range rows {
		rows[k] = []types.Datum{i(1704067200000 + int64(k)*1000)}
	}
	rec := types.BuildRecord(alloc, []string{"t"}, in, rows)
	defer rec.Release()
	x, err := Compile(bin(plan.OpAdd, col(0, ts3), lit(i(types.MsPerDay), ivl), ts3), in)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := x.Eval(alloc, rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(4096*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkTake measures Take of half the rows, in reverse order, from a
// 4096-row column of each fixed-width type and of strings.
func BenchmarkTake(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in := []types.T{bigint, double, dec102, dateT, vchar}
	rows := make([][]types.Datum, 4096)
	for k := range rows {
		rows[k] = []types.Datum{i(int64(k)), f(float64(k)), d(fmt.Sprintf("%d.25", k), 2), i(int64(k)), s(fmt.Sprintf("item-%d", k%50))}
		if k%10 == 0 {
			rows[k][0] = null
		}
	}
	rec := types.BuildRecord(alloc, []string{"i", "f", "d", "dt", "s"}, in, rows)
	defer rec.Release()
	sel := make([]int32, 0, 2048)
	for k := 4095; k >= 0; k -= 2 {
		sel = append(sel, int32(k))
	}
	for j, t := range in {
		b.Run(t.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := Take(alloc, rec.Column(j), sel)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
		})
	}
}
