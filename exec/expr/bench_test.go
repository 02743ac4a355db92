package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// benchInput is the batch the benchmarks read: 4096 rows of (a BIGINT with
// 10% NULLs, b BIGINT, s VARCHAR, d DOUBLE, t TIMESTAMP(3), m DECIMAL(10,2),
// day DATE).
var benchInput = []types.T{bigint, bigint, vchar, double, ts3, dec102, dateT}

func benchBatch(alloc memory.Allocator) arrow.RecordBatch {
	rows := make([][]types.Datum, 4096)
	for k := range rows {
		a := i(int64(k))
		if k%10 == 0 {
			a = null
		}
		rows[k] = []types.Datum{a, i(int64(k * 7 % 1000)), s(fmt.Sprintf("item-%d", k%50)), f(float64(k) * 0.5),
			i(1704067200000 + int64(k)*1000), d(fmt.Sprintf("%d.25", k), 2), i(int64(19000 + k))}
	}
	return types.BuildRecord(alloc, []string{"a", "b", "s", "d", "t", "m", "day"}, benchInput, rows)
}

// BenchmarkKernels measures single expressions over benchInput and reports
// rows/s.
func BenchmarkKernels(b *testing.B) {
	alloc := memory.NewGoAllocator()
	in := benchInput
	rec := benchBatch(alloc)
	defer rec.Release()
	A, B, S, D, T, Day := col(0, bigint), col(1, bigint), col(2, vchar), col(3, double), col(4, ts3), col(6, dateT)
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
		// TIMESTAMP + INTERVAL checks each result against the supported range.
		{"t + INTERVAL 1 DAY", bin(plan.OpAdd, T, lit(i(types.MsPerDay), ivl), ts3), false},
		{"day + INTERVAL 1 DAY", bin(plan.OpAdd, Day, lit(i(types.MsPerDay), ivl), dateT), false},
		{"day + INTERVAL 1 SECOND", bin(plan.OpAdd, Day, lit(i(1000), ivl), ts0), false},
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

// BenchmarkTake measures Take of half the rows, in reverse order, from
// each column of benchInput.
func BenchmarkTake(b *testing.B) {
	alloc := memory.NewGoAllocator()
	rec := benchBatch(alloc)
	defer rec.Release()
	sel := make([]int32, 0, 2048)
	for k := 4095; k >= 0; k -= 2 {
		sel = append(sel, int32(k))
	}
	for j, t := range benchInput {
		b.Run(rec.Schema().Field(j).Name+" "+t.String(), func(b *testing.B) {
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
