package expr

import (
	"fmt"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestFilterShapedCaseMasksItsColumn compiles CASE WHEN cond THEN col END
// — an aggregate's FILTER — to a maskNode, and checks its values against
// the CASE's meaning over rows where the condition and the column are
// each TRUE, FALSE and NULL, across more than one bitmap byte and a part
// byte, for columns of each representation.
func TestFilterShapedCaseMasksItsColumn(t *testing.T) {
	for _, ct := range []struct {
		t   types.T
		val func(k int) types.Datum
	}{
		{bigint, func(k int) types.Datum { return i(int64(k * 7)) }},
		{double, func(k int) types.Datum { return f(float64(k) / 4) }},
		{vchar, func(k int) types.Datum { return s(fmt.Sprintf("value-%d", k)) }},
		{dec102, func(k int) types.Datum { return d(fmt.Sprintf("%d.25", k), 2) }},
		{dateT, func(k int) types.Datum { return i(int64(19000 + k)) }},
	} {
		input := []types.T{boolT, bigint, ct.t}
		e := &plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpLt, col(1, bigint), litI(10)), Result: col(2, ct.t)}},
			Else: litNull(ct.t), Typ: ct.t}
		x, err := Compile(e, input)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := x.root.(*maskNode); !ok {
			t.Fatalf("%s: compiled to %T, want *maskNode", ct.t, x.root)
		}
		var rows [][]types.Datum
		var want []types.Datum
		for k := range 21 {
			p := i(int64(k % 20)) // below 10 for k < 10 and k = 20
			if k%7 == 3 {
				p = null
			}
			v := ct.val(k)
			if k%5 == 1 {
				v = null
			}
			rows = append(rows, []types.Datum{null, p, v})
			if !p.Null && p.I < 10 {
				want = append(want, v)
			} else {
				want = append(want, null)
			}
		}
		runCases(t, input, []tcase{{name: ct.t.String(), e: e, rows: rows, want: want}})
		// A constant condition takes every row or none.
		for _, c := range []bool{true, false} {
			e := &plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpLt, col(1, bigint), litI(10)), Result: col(2, ct.t)}},
				Else: litNull(ct.t), Typ: ct.t}
			e.Whens[0].Cond = litB(c)
			want := make([]types.Datum, len(rows))
			for k := range rows {
				want[k] = null
				if c {
					want[k] = rows[k][2]
				}
			}
			runCases(t, input, []tcase{{name: fmt.Sprintf("%s/%v", ct.t, c), e: e, rows: rows, want: want}})
		}
	}
}

// TestCaseWithElseIsNotMasked keeps the general CASE where the shape
// differs: an ELSE, a second branch, a result that is not a column.
func TestCaseWithElseIsNotMasked(t *testing.T) {
	input := []types.T{bigint, bigint}
	cond := cmpE(plan.OpLt, col(0, bigint), litI(10))
	for _, e := range []*plan.Case{
		{Whens: []plan.When{{Cond: cond, Result: col(1, bigint)}}, Else: litI(0), Typ: bigint},
		{Whens: []plan.When{{Cond: cond, Result: col(1, bigint)}, {Cond: cond, Result: col(0, bigint)}}, Else: litNull(bigint), Typ: bigint},
		{Whens: []plan.When{{Cond: cond, Result: bin(plan.OpAdd, col(1, bigint), litI(1), bigint)}}, Else: litNull(bigint), Typ: bigint},
	} {
		x, err := Compile(e, input)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := x.root.(*maskNode); ok {
			t.Errorf("%s compiled to a maskNode", e)
		}
	}
}

// TestFilterShapedCaseRepeatsItsConstant checks CASE WHEN cond THEN k END
// for constants k of each representation (COUNT(*) FILTER (WHERE cond)
// reads CASE WHEN cond THEN 1 END), compiled once and evaluated over
// batches of several sizes, so that the repeated constant's buffer is
// both reused and grown.
func TestFilterShapedCaseRepeatsItsConstant(t *testing.T) {
	for _, k := range []*plan.Const{litI(1), litF(2.5), litB(true), lit(d("3.25", 2), dec102), lit(i(19000), dateT), litS("yes")} {
		input := []types.T{bigint}
		e := &plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpLt, col(0, bigint), litI(10)), Result: k}},
			Else: litNull(k.Typ), Typ: k.Typ}
		x, err := Compile(e, input)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := x.root.(*maskNode); !ok {
			t.Fatalf("%s: compiled to %T, want *maskNode", k, x.root)
		}
		for _, n := range []int{3, 17, 9, 40} {
			var rows [][]types.Datum
			var want []types.Datum
			for r := range n {
				p := i(int64(r % 20))
				if r%6 == 5 {
					p = null
				}
				rows = append(rows, []types.Datum{p})
				if !p.Null && p.I < 10 {
					want = append(want, k.Val)
				} else {
					want = append(want, null)
				}
			}
			alloc := checkedAlloc(t)
			for _, sliced := range []bool{false, true} {
				rec := makeBatch(alloc, input, rows, sliced)
				checkEval(t, alloc, x, rec, tcase{name: fmt.Sprintf("%s/%d", k, n), e: e, rows: rows, want: want}, sliced)
				rec.Release()
			}
		}
	}
}
