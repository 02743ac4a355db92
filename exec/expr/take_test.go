package expr

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

func TestTake(t *testing.T) {
	alloc := checkedAlloc(t)
	ts := []types.T{boolT, bigint, double, dec102, vchar, dateT, ts3, ivl, types.NullT}
	rows := [][]types.Datum{
		{b(true), i(1), f(1.5), d("1.25", 2), s("one"), dd("2024-01-01"), tsd("2024-01-01 00:00:01"), i(1000), null},
		{null, null, null, null, null, null, null, null, null},
		{b(false), i(-3), f(-2), d("-3.00", 2), s(""), dd("1969-12-31"), tsd("1969-12-31 23:59:59.999"), i(-5), null},
		{b(true), i(4), f(0), d("0.01", 2), s("four€"), dd("2000-02-29"), tsd("2000-02-29 12:00:00"), i(0), null},
	}
	sel := []int32{3, 1, 0, 0, 2}
	for _, sliced := range []bool{false, true} {
		rec := makeBatch(alloc, ts, rows, sliced)
		for j, typ := range ts {
			got, err := Take(alloc, rec.Column(j), sel)
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			if got.Len() != len(sel) {
				t.Fatalf("%s: %d rows", typ, got.Len())
			}
			for k, r := range sel {
				g, w := types.DatumAt(got, k, typ), rows[r][j]
				if !types.Equal(g, w, typ) {
					t.Errorf("sliced=%v %s row %d: got %s, want %s", sliced, typ, k, types.Format(g, typ), types.Format(w, typ))
				}
			}
			got.Release()
			empty, err := Take(alloc, rec.Column(j), nil)
			if err != nil || empty.Len() != 0 {
				t.Fatalf("%s: empty take: %v", typ, err)
			}
			empty.Release()
		}
		if _, err := Take(alloc, rec.Column(1), []int32{4}); err == nil {
			t.Errorf("out of range index accepted")
		}
		rec.Release()
	}
	lst := array.NewListBuilder(alloc, arrow.PrimitiveTypes.Int64)
	lst.AppendNull()
	la := lst.NewArray()
	if _, err := Take(alloc, la, []int32{0}); err == nil {
		t.Errorf("Take of a list array succeeded")
	}
	la.Release()
	lst.Release()
}

func TestEvalConstAndErrors(t *testing.T) {
	v := evalConst(t, bin(plan.OpAdd, litI(2), litI(3), bigint))
	if v.I != 5 {
		t.Errorf("2+3 = %d", v.I)
	}
	v = evalConst(t, fn("upper", vchar, litS("abc")))
	if v.S != "ABC" {
		t.Errorf("upper = %q", v.S)
	}
	v = evalConst(t, bin(plan.OpIntDiv, litI(1), litI(0), bigint))
	if !v.Null {
		t.Errorf("1 DIV 0 = %v", v)
	}
	_, err := EvalConst(cast(litS("abc"), bigint))
	var re *RowError
	if !errorsAs(err, &re) || re.Kind != BadCast || re.Error() != "cannot cast 'abc' to BIGINT" {
		t.Errorf("cast error: %v", err)
	}
	if _, err := EvalConst(col(0, bigint)); err == nil {
		t.Errorf("EvalConst of a column succeeded")
	}
	if _, err := Compile(&plan.ColRef{ID: 1, Name: "x", Typ: bigint}, []types.T{bigint}); err == nil {
		t.Errorf("Compile of a ColRef succeeded")
	}
	if _, err := Compile(col(0, vchar), []types.T{bigint}); err == nil {
		t.Errorf("Compile with a mistyped input succeeded")
	}
	if _, err := Compile(fn("no_such_fn", bigint), nil); err == nil {
		t.Errorf("unknown function compiled")
	}
	x, err := Compile(col(0, bigint), []types.T{bigint})
	if err != nil {
		t.Fatal(err)
	}
	alloc := checkedAlloc(t)
	rec := types.BuildRecord(alloc, []string{"s"}, []types.T{vchar}, [][]types.Datum{{s("x")}})
	defer rec.Release()
	if _, err := x.Eval(alloc, rec); err == nil {
		t.Errorf("Eval over a column of the wrong type succeeded")
	}
	if _, err := x.Select(alloc, rec, nil); err == nil {
		t.Errorf("Select of a BIGINT succeeded")
	}
}

// TestConstantResults checks results that are constants (broadcast on
// export) for every physical type.
func TestConstantResults(t *testing.T) {
	rows := [][]types.Datum{{i(1)}, {null}, {i(3)}}
	runCases(t, []types.T{bigint}, []tcase{
		{name: "bool", e: litB(true), rows: rows, want: []types.Datum{b(true), b(true), b(true)}},
		{name: "int", e: litI(7), rows: rows, want: []types.Datum{i(7), i(7), i(7)}},
		{name: "string", e: litS("ab"), rows: rows, want: []types.Datum{s("ab"), s("ab"), s("ab")}},
		{name: "decimal", e: lit(d("1.5", 2), dec102), rows: rows, want: []types.Datum{d("1.5", 2), d("1.5", 2), d("1.5", 2)}},
		{name: "date", e: lit(dd("2024-01-01"), dateT), rows: rows, want: []types.Datum{dd("2024-01-01"), dd("2024-01-01"), dd("2024-01-01")}},
		{name: "null", e: litNull(vchar), rows: rows, want: []types.Datum{null, null, null}},
		{name: "column", e: col(0, bigint), rows: rows, want: []types.Datum{i(1), null, i(3)}},
	})
}

// TestColumnBeforeConstantFunction checks that an expression reading a
// column is not folded as a constant when a function over constants comes
// after the column in it: isConstant used to let the later function reset
// its verdict, and folding then evaluated the column with no batch (an
// index out of range panic in Calc.Open).
func TestColumnBeforeConstantFunction(t *testing.T) {
	rows := [][]types.Datum{{i(-2)}, {i(3)}, {null}}
	absCol := fn("abs", bigint, col(0, bigint))
	runCases(t, []types.T{bigint}, []tcase{
		{name: "compare", e: cmpE(plan.OpEq, absCol, fn("abs", bigint, litI(-2))), rows: rows,
			want: []types.Datum{b(true), b(false), null}},
		{name: "arith", e: bin(plan.OpAdd, col(0, bigint), fn("abs", bigint, litI(-1)), bigint), rows: rows,
			want: []types.Datum{i(-1), i(4), null}},
	})
	if isConstant(cmpE(plan.OpEq, absCol, fn("abs", bigint, litI(-2)))) {
		t.Errorf("isConstant(abs(c0) = abs(-2)) = true")
	}
	// The same inside a Program, as Calc compiles it.
	p, err := CompileProgram(cmpE(plan.OpEq, absCol, fn("abs", bigint, litI(-2))),
		[]plan.Expr{col(0, bigint)}, []types.T{bigint})
	if err != nil {
		t.Fatal(err)
	}
	alloc := checkedAlloc(t)
	rec := types.BuildRecord(alloc, []string{"c0"}, []types.T{bigint}, rows)
	defer rec.Release()
	cols := make([]arrow.Array, 1)
	n, _, err := p.Eval(alloc, rec, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	releaseAll(cols)
	if n != 1 {
		t.Errorf("program kept %d rows, want 1", n)
	}
}

func errorsAs(err error, target **RowError) bool { return errors.As(err, target) }

// TestSteadyStateAllocations checks that, once scratch buffers have grown,
// evaluation allocates only the result array.
func TestSteadyStateAllocations(t *testing.T) {
	alloc := memory.NewGoAllocator()
	in := []types.T{bigint, vchar, double}
	var rows [][]types.Datum
	for k := 0; k < 1000; k++ {
		v := null
		if k%7 != 0 {
			v = i(int64(k))
		}
		rows = append(rows, []types.Datum{v, s("abc"[:k%4]), f(float64(k) / 3)})
	}
	rec := types.BuildRecord(alloc, []string{"a", "b", "c"}, in, rows)
	defer rec.Release()
	pred, err := Compile(&plan.And{Args: []plan.Expr{
		cmpE(plan.OpGt, bin(plan.OpMul, col(0, bigint), litI(2), bigint), litI(5)),
		&plan.Like{Arg: col(1, vchar), Pattern: litS("a%")},
		&plan.In{Arg: col(0, bigint), List: []plan.Expr{litI(1), litI(8), litI(9)}, Negated: true},
	}}, in)
	if err != nil {
		t.Fatal(err)
	}
	sel := make([]int32, 0, 1000)
	if n := testing.AllocsPerRun(20, func() {
		if sel, err = pred.Select(alloc, rec, sel); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Select allocates %v times per batch", n)
	}
	proj, err := Compile(&plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpLt, col(2, double), litF(100)), Result: fn("upper", vchar, col(1, vchar))}},
		Else: fn("concat", vchar, col(1, vchar), litS("!")), Typ: vchar}, in)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(20, func() {
		out, err := proj.EvalSelected(alloc, rec, sel)
		if err != nil {
			t.Fatal(err)
		}
		out.Release()
	}); n > 12 {
		t.Errorf("EvalSelected allocates %v times per batch", n)
	}
}

func TestTakeNegativeIndex(t *testing.T) {
	alloc := checkedAlloc(t)
	arr := types.BuildArray(alloc, bigint, []types.Datum{i(1), i(2)})
	defer arr.Release()
	if _, err := Take(alloc, arr, []int32{0, -1}); err == nil {
		t.Errorf("negative index accepted")
	}
}

// TestTakeParts checks that TakeParts of the rows of several batches,
// sliced or not, with and without NULLs, holds what Take of each part
// holds, part after part.
func TestTakeParts(t *testing.T) {
	alloc := checkedAlloc(t)
	ts := []types.T{boolT, bigint, double, dec102, vchar, dateT, ts3, ivl, types.NullT}
	withNulls := [][]types.Datum{
		{b(true), i(1), f(1.5), d("1.25", 2), s("one"), dd("2024-01-01"), tsd("2024-01-01 00:00:01"), i(1000), null},
		{null, null, null, null, null, null, null, null, null},
		{b(false), i(-3), f(-2), d("-3.00", 2), s(""), dd("1969-12-31"), tsd("1969-12-31 23:59:59.999"), i(-5), null},
		{b(true), i(4), f(0), d("0.01", 2), s("four€"), dd("2000-02-29"), tsd("2000-02-29 12:00:00"), i(0), null},
	}
	noNulls := [][]types.Datum{
		{b(false), i(7), f(7.25), d("7.00", 2), s("seven"), dd("2020-07-07"), tsd("2020-07-07 07:07:07"), i(7), null},
		{b(true), i(8), f(-8), d("-8.50", 2), s("eight"), dd("1970-01-01"), tsd("1970-01-01 00:00:00.008"), i(-8), null},
		{b(true), i(9), f(9), d("9.99", 2), s("nine"), dd("1999-09-09"), tsd("1999-09-09 09:09:09"), i(9), null},
		{b(false), i(10), f(10), d("10.00", 2), s("ten"), dd("2010-10-10"), tsd("2010-10-10 10:10:10"), i(10), null},
	}
	for _, sliced := range []bool{false, true} {
		recs := []arrow.RecordBatch{makeBatch(alloc, ts, withNulls, sliced), makeBatch(alloc, ts, noNulls, sliced), makeBatch(alloc, ts, withNulls, sliced)}
		rows := [][][]types.Datum{withNulls, noNulls, withNulls}
		for _, parts := range [][]int{{0, 1, 2}, {1, 1}, {1, 0}, {2}} {
			sels := [][]int32{{3, 1, 0}, {2, 2, 1}, {0}, {}}
			for j, typ := range ts {
				var arrs []arrow.Array
				var ss [][]int32
				var want []types.Datum
				for k, p := range parts {
					arrs, ss = append(arrs, recs[p].Column(j)), append(ss, sels[k])
					for _, r := range sels[k] {
						want = append(want, rows[p][r][j])
					}
				}
				got, err := TakeParts(alloc, arrs, ss)
				if err != nil {
					t.Fatalf("%s: %v", typ, err)
				}
				if got.Len() != len(want) {
					t.Fatalf("sliced=%v parts %v %s: %d rows, want %d", sliced, parts, typ, got.Len(), len(want))
				}
				nulls := 0
				for k, w := range want {
					if g := types.DatumAt(got, k, typ); !types.Equal(g, w, typ) {
						t.Errorf("sliced=%v parts %v %s row %d: got %s, want %s", sliced, parts, typ, k, types.Format(g, typ), types.Format(w, typ))
					}
					if w.Null {
						nulls++
					}
				}
				if got.NullN() != nulls {
					t.Errorf("sliced=%v parts %v %s: %d NULLs, want %d", sliced, parts, typ, got.NullN(), nulls)
				}
				got.Release()
			}
		}
		if _, err := TakeParts(alloc, []arrow.Array{recs[0].Column(1), recs[1].Column(1)}, [][]int32{{0}, {4}}); err == nil {
			t.Errorf("out of range index accepted")
		}
		if _, err := TakeParts(alloc, []arrow.Array{recs[0].Column(1), recs[1].Column(2)}, [][]int32{{0}, {0}}); err == nil {
			t.Errorf("parts of two types accepted")
		}
		for _, r := range recs {
			r.Release()
		}
	}
}
