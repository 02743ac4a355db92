package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Shorthands for building expressions and values in tests.

var (
	bigint = types.BigIntT
	double = types.DoubleT
	vchar  = types.VarcharT
	boolT  = types.BoolT
	dateT  = types.DateT
	ts3    = types.TimestampT(3)
	ts0    = types.TimestampT(0)
	ivl    = types.IntervalT
	dec102 = types.DecimalT(10, 2)
	null   = types.NullDatum
)

func col(ord int, t types.T) *plan.InputRef {
	return &plan.InputRef{Ord: ord, Typ: t, Null: true, Name: fmt.Sprintf("c%d", ord)}
}

func lit(d types.Datum, t types.T) *plan.Const { return &plan.Const{Val: d, Typ: t} }
func litI(v int64) *plan.Const                 { return lit(types.IntDatum(v), bigint) }
func litF(v float64) *plan.Const               { return lit(types.FloatDatum(v), double) }
func litS(s string) *plan.Const                { return lit(types.StringDatum(s), vchar) }
func litB(b bool) *plan.Const                  { return lit(types.BoolDatum(b), boolT) }
func litNull(t types.T) *plan.Const            { return lit(null, t) }
func i(v int64) types.Datum                    { return types.IntDatum(v) }
func f(v float64) types.Datum                  { return types.FloatDatum(v) }
func s(v string) types.Datum                   { return types.StringDatum(v) }
func b(v bool) types.Datum                     { return types.BoolDatum(v) }

func bin(op plan.BinOp, l, r plan.Expr, t types.T) *plan.Binary {
	return &plan.Binary{Op: op, L: l, R: r, Typ: t}
}

func cmpE(op plan.BinOp, l, r plan.Expr) *plan.Binary { return bin(op, l, r, boolT) }

func fn(name string, t types.T, args ...plan.Expr) *plan.Func {
	return &plan.Func{Name: name, Args: args, Typ: t, Null: true}
}

func cast(e plan.Expr, t types.T) *plan.Cast { return &plan.Cast{Arg: e, To: t} }

// d parses a decimal literal at scale s.
func d(v string, s int) types.Datum {
	n, err := decimal128.FromString(v, 38, int32(s))
	if err != nil {
		panic(err)
	}
	return types.DecimalDatum(n)
}

// tsd parses a timestamp; dd a date.
func tsd(v string) types.Datum {
	ms, err := types.ParseTimestamp(v)
	if err != nil {
		panic(err)
	}
	return types.IntDatum(ms)
}

func dd(v string) types.Datum {
	days, err := types.ParseDate(v)
	if err != nil {
		panic(err)
	}
	return types.IntDatum(int64(days))
}

// checkedAlloc returns an allocator that fails the test if any of its
// memory is still allocated when the test ends.
func checkedAlloc(t *testing.T) *memory.CheckedAllocator {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { alloc.AssertSize(t, 0) })
	return alloc
}

// tcase is one expression evaluated over rows of input columns.
type tcase struct {
	name string
	e    plan.Expr
	rows [][]types.Datum // input rows (nil: one row without columns)
	want []types.Datum   // one value per row
	err  string          // a substring of the expected error
}

// runCases checks every case over its rows as given, as a slice of a larger
// batch (non-zero, unaligned offset) and over an empty batch; boolean cases
// also through Select. Every buffer must be released.
func runCases(t *testing.T, input []types.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			alloc := checkedAlloc(t)
			rows := tc.rows
			if rows == nil {
				rows = [][]types.Datum{make([]types.Datum, len(input))}
			}
			x, err := Compile(tc.e, input)
			if err != nil {
				if tc.err != "" && strings.Contains(err.Error(), tc.err) {
					return
				}
				t.Fatalf("Compile(%s): %v", tc.e, err)
			}
			for _, sliced := range []bool{false, true} {
				rec := makeBatch(alloc, input, rows, sliced)
				checkEval(t, alloc, x, rec, tc, sliced)
				rec.Release()
			}
			empty := makeBatch(alloc, input, nil, false)
			got, err := x.Eval(alloc, empty)
			if err != nil {
				t.Fatalf("empty batch: %v", err)
			}
			if got.Len() != 0 {
				t.Fatalf("empty batch: got %d rows", got.Len())
			}
			got.Release()
			empty.Release()
		})
	}
}

func checkEval(t *testing.T, alloc memory.Allocator, x *Expr, rec arrow.RecordBatch, tc tcase, sliced bool) {
	t.Helper()
	got, err := x.Eval(alloc, rec)
	if tc.err != "" {
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("sliced=%v: got error %v, want %q", sliced, err, tc.err)
		}
		if got != nil {
			got.Release()
		}
		all := make([]int32, rec.NumRows())
		for k := range all {
			all[k] = int32(k)
		}
		if got, err := x.EvalSelected(alloc, rec, all); err == nil {
			got.Release()
			t.Fatalf("sliced=%v: EvalSelected did not fail", sliced)
		}
		return
	}
	if err != nil {
		t.Fatalf("sliced=%v: %s: %v", sliced, tc.e, err)
	}
	defer got.Release()
	if !arrow.TypeEqual(got.DataType(), x.Type().Arrow()) {
		t.Fatalf("result type %s, want %s", got.DataType(), x.Type().Arrow())
	}
	if got.Len() != len(tc.want) {
		t.Fatalf("sliced=%v: got %d rows, want %d", sliced, got.Len(), len(tc.want))
	}
	var want []int32
	for r, w := range tc.want {
		g := types.DatumAt(got, r, x.Type())
		if !types.Equal(g, w, x.Type()) || g.Null != w.Null {
			t.Errorf("sliced=%v row %d: %s = %s, want %s", sliced, r, tc.e,
				types.Format(g, x.Type()), types.Format(w, x.Type()))
		}
		if x.Type().Kind == types.Boolean && !w.Null && w.Bool() {
			want = append(want, int32(r))
		}
	}
	// EvalSelected over the rows in reverse order.
	rev := make([]int32, len(tc.want))
	for k := range rev {
		rev[k] = int32(len(rev) - 1 - k)
	}
	sub, err := x.EvalSelected(alloc, rec, rev)
	if err != nil {
		t.Fatalf("sliced=%v: EvalSelected: %v", sliced, err)
	}
	for k, r := range rev {
		g, w := types.DatumAt(sub, k, x.Type()), tc.want[r]
		if !types.Equal(g, w, x.Type()) || g.Null != w.Null {
			t.Errorf("sliced=%v EvalSelected row %d: %s = %s, want %s", sliced, k, tc.e,
				types.Format(g, x.Type()), types.Format(w, x.Type()))
		}
	}
	sub.Release()
	if x.Type().Kind == types.Boolean {
		sel, err := x.Select(alloc, rec, make([]int32, 3))
		if err != nil {
			t.Fatalf("Select: %v", err)
		}
		if fmt.Sprint(sel) != fmt.Sprint(want) && !(len(sel) == 0 && len(want) == 0) {
			t.Errorf("sliced=%v: Select = %v, want %v", sliced, sel, want)
		}
	}
}

// makeBatch builds a batch of rows; sliced builds it as a slice of a larger
// batch, with three copies of the first row before and two after, so that
// columns have an unaligned offset and values past the slice's end.
func makeBatch(alloc memory.Allocator, input []types.T, rows [][]types.Datum, sliced bool) arrow.RecordBatch {
	names := make([]string, len(input))
	for j := range names {
		names[j] = fmt.Sprintf("c%d", j)
	}
	if !sliced {
		return types.BuildRecord(alloc, names, input, rows)
	}
	pad := make([]types.Datum, len(input))
	for j := range pad {
		pad[j] = null
		if len(rows) > 0 {
			pad[j] = rows[0][j]
		}
	}
	all := append(append([][]types.Datum{pad, pad, pad}, rows...), pad, pad)
	full := types.BuildRecord(alloc, names, input, all)
	defer full.Release()
	cols := make([]arrow.Array, len(input))
	for j := range cols {
		cols[j] = array.NewSlice(full.Column(j), 3, int64(3+len(rows)))
		defer cols[j].Release()
	}
	return array.NewRecordBatch(full.Schema(), cols, int64(len(rows)))
}

// evalConst evaluates a constant expression or fails the test.
func evalConst(t *testing.T, e plan.Expr) types.Datum {
	t.Helper()
	v, err := EvalConst(e)
	if err != nil {
		t.Fatalf("EvalConst(%s): %v", e, err)
	}
	return v
}
