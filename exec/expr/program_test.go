package expr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// programCase is a filter and projections over (c0 BIGINT, c1 BIGINT,
// c2 VARCHAR), and how many subexpressions the program should share.
type programCase struct {
	name   string
	filter plan.Expr
	projs  []plan.Expr
	temps  int
}

func programCases() []programCase {
	a, b, s := col(0, bigint), col(1, bigint), col(2, vchar)
	a1 := bin(plan.OpAdd, a, litI(1), bigint)
	b3 := bin(plan.OpMul, b, litI(3), bigint)
	sum := bin(plan.OpAdd, a1, b3, bigint)
	up := fn("upper", vchar, s)
	return []programCase{
		{name: "nothing shared", filter: cmpE(plan.OpGt, a, litI(2)), projs: []plan.Expr{a1, b3}},
		{name: "shared by projections", projs: []plan.Expr{sum, bin(plan.OpSub, b3, sum, bigint)}, temps: 2},
		{name: "shared by filter and projections",
			filter: cmpE(plan.OpNe, bin(plan.OpMod, a1, litI(7), bigint), litI(0)),
			projs:  []plan.Expr{sum, bin(plan.OpSub, b3, sum, bigint)}, temps: 3},
		{name: "projection is the shared expression", projs: []plan.Expr{up, fn("length", bigint, up), up}, temps: 1},
		{name: "filter reads what only projections share",
			filter: cmpE(plan.OpEq, s, litS("x")), projs: []plan.Expr{up, fn("concat", vchar, up, up)}, temps: 1},
		{name: "input columns pass through", filter: cmpE(plan.OpGe, b, litI(0)), projs: []plan.Expr{b, a, a1, a1}, temps: 1},
		// 10 DIV b fails nowhere here (b = 0 gives NULL), but a guarded
		// operand is never hoisted out of its guard.
		{name: "guarded operands are not shared",
			filter: &plan.And{Args: []plan.Expr{cmpE(plan.OpNe, b, litI(0)), cmpE(plan.OpGt, bin(plan.OpIntDiv, litI(10), b, bigint), litI(1))}},
			projs:  []plan.Expr{bin(plan.OpIntDiv, litI(10), b, bigint)}},
		{name: "CASE branches are not shared",
			projs: []plan.Expr{&plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpGt, a, litI(3)), Result: a1}}, Else: litI(0), Typ: bigint}, a1},
		},
		{name: "CASE first condition is shared",
			projs: []plan.Expr{&plan.Case{Whens: []plan.When{{Cond: cmpE(plan.OpGt, a1, litI(3)), Result: a}}, Else: b, Typ: bigint}, a1},
			temps: 1},
		{name: "constant subtrees are folded, not shared",
			projs: []plan.Expr{bin(plan.OpAdd, a, bin(plan.OpMul, litI(2), litI(3), bigint), bigint), bin(plan.OpMul, litI(2), litI(3), bigint)}},
	}
}

func programRows() [][]types.Datum {
	var rows [][]types.Datum
	for r := int64(0); r < 40; r++ {
		row := []types.Datum{i(r), i(r%5 - 1), s(strings.Repeat("x", int(r%3)))}
		if r%7 == 3 {
			row[0] = null
		}
		if r%11 == 4 {
			row[2] = null
		}
		rows = append(rows, row)
	}
	return rows
}

// TestProgramMatchesExpressions checks that a program computes exactly what
// its filter and projections compute one by one, sharing what it should.
func TestProgramMatchesExpressions(t *testing.T) {
	input := []types.T{bigint, bigint, vchar}
	for _, tc := range programCases() {
		t.Run(tc.name, func(t *testing.T) {
			alloc := checkedAlloc(t)
			p := compileSharing(t, tc.filter, tc.projs, input, tc.temps)
			for _, sliced := range []bool{false, true} {
				rec := makeBatch(alloc, input, programRows(), sliced)
				for round := 0; round < 2; round++ { // scratch memory is reused
					checkProgram(t, alloc, p, tc, input, rec)
				}
				rec.Release()
			}
		})
	}
}

// compileSharing compiles a program, failing the test if it does not
// compile or does not share temps subexpressions.
func compileSharing(t *testing.T, filter plan.Expr, projs []plan.Expr, input []types.T, temps int) *Program {
	t.Helper()
	p, err := CompileProgram(filter, projs, input)
	if err != nil {
		t.Fatal(err)
	}
	if p.Temps() != temps {
		t.Errorf("shared %d subexpressions, want %d", p.Temps(), temps)
	}
	return p
}

func checkProgram(t *testing.T, alloc memory.Allocator, p *Program, tc programCase, input []types.T, rec arrow.RecordBatch) {
	t.Helper()
	// The expected result, one expression at a time.
	var want []int32
	if tc.filter != nil {
		x, err := Compile(tc.filter, input)
		if err != nil {
			t.Fatal(err)
		}
		if want, err = x.Select(alloc, rec, nil); err != nil {
			t.Fatal(err)
		}
	} else {
		for r := 0; r < int(rec.NumRows()); r++ {
			want = append(want, int32(r))
		}
	}
	cols := make([]arrow.Array, len(tc.projs))
	n, sel, err := p.Eval(alloc, rec, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(cols)
	if n != len(want) {
		t.Fatalf("kept %d rows, want %d", n, len(want))
	}
	if len(want) == int(rec.NumRows()) {
		if sel != nil {
			t.Fatalf("kept every row but returned a selection %v", sel)
		}
	} else if len(sel) != len(want) {
		t.Fatalf("selection %v, want %v", sel, want)
	}
	for j, e := range tc.projs {
		x, err := Compile(e, input)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := x.EvalSelected(alloc, rec, want)
		if err != nil {
			t.Fatal(err)
		}
		if cols[j].Len() != n {
			t.Fatalf("projection %d has %d rows, want %d", j, cols[j].Len(), n)
		}
		for r := 0; r < n; r++ {
			g, w := types.DatumAt(cols[j], r, e.Type()), types.DatumAt(exp, r, e.Type())
			if !types.Equal(g, w, e.Type()) || g.Null != w.Null {
				t.Errorf("row %d: %s = %s, want %s", want[r], e, types.Format(g, e.Type()), types.Format(w, e.Type()))
			}
		}
		exp.Release()
	}
}

func TestShareSubexpressionsKeys(t *testing.T) {
	a := col(0, bigint)
	other := &plan.InputRef{Ord: 0, Name: "renamed", Typ: bigint, Null: true}
	// The same column under two names is one expression; the same text over
	// different columns or types is not.
	for _, tc := range []struct {
		x, y plan.Expr
		same bool
	}{
		{bin(plan.OpAdd, a, litI(1), bigint), bin(plan.OpAdd, other, litI(1), bigint), true},
		{bin(plan.OpAdd, a, litI(1), bigint), bin(plan.OpAdd, col(1, bigint), litI(1), bigint), false},
		{cast(a, double), &plan.Cast{Arg: a, To: double, Implicit: true}, false},
		{bin(plan.OpAdd, a, litI(1), bigint), bin(plan.OpAdd, a, lit(i(1), types.IntT), bigint), false},
	} {
		if got := exprKey(tc.x) == exprKey(tc.y); got != tc.same {
			t.Errorf("%s vs %s: same key %v, want %v", tc.x, tc.y, got, tc.same)
		}
	}
}

// TestProgramSkipsDroppedRows checks that a row the filter drops cannot
// fail the batch: what only projections share is computed over the kept
// rows, and a later conjunct sees only the rows the earlier ones kept. The
// same expressions over that row fail, naming the one that failed. Over a
// = 1, 2^30, -2, 3, a * 2^40 overflows on the second row only.
func TestProgramSkipsDroppedRows(t *testing.T) {
	input := []types.T{bigint}
	a := col(0, bigint)
	big := bin(plan.OpMul, a, litI(1<<40), bigint)
	small := cmpE(plan.OpLt, a, litI(100))
	overflows := cmpE(plan.OpGt, big, litI(0))
	shared := []plan.Expr{big, bin(plan.OpAdd, big, litI(1), bigint)}
	for _, c := range []struct {
		name   string
		filter plan.Expr
		projs  []plan.Expr
		temps  int
		kept   []int32 // the rows kept
		last   []int64 // the last projection over them
		err    string  // or a substring of the batch's error
	}{
		{name: "shared by projections", filter: small, projs: shared, temps: 1,
			kept: []int32{0, 2, 3}, last: []int64{1<<40 + 1, -2<<40 + 1, 3<<40 + 1}},
		{name: "shared by projections, no filter", projs: shared, temps: 1, err: "c0 * 1099511627776"},
		{name: "a later conjunct", filter: &plan.And{Args: []plan.Expr{small, overflows}}, projs: []plan.Expr{a},
			kept: []int32{0, 3}, last: []int64{1, 3}},
		{name: "the first conjunct", filter: &plan.And{Args: []plan.Expr{overflows, small}}, projs: []plan.Expr{a},
			err: "c0 * 1099511627776"},
	} {
		t.Run(c.name, func(t *testing.T) {
			alloc := checkedAlloc(t)
			p := compileSharing(t, c.filter, c.projs, input, c.temps)
			rec := makeBatch(alloc, input, [][]types.Datum{{i(1)}, {i(1 << 30)}, {i(-2)}, {i(3)}}, false)
			defer rec.Release()
			cols := make([]arrow.Array, len(c.projs))
			n, sel, err := p.Eval(alloc, rec, cols, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					releaseAll(cols)
					t.Fatalf("got %v, want an error containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("a dropped row failed the batch: %v", err)
			}
			defer releaseAll(cols)
			var last []int64
			for r := range n {
				last = append(last, types.DatumAt(cols[len(cols)-1], r, bigint).I)
			}
			if fmt.Sprint(sel[:n]) != fmt.Sprint(c.kept) || fmt.Sprint(last) != fmt.Sprint(c.last) {
				t.Fatalf("kept rows %v with %v, want %v with %v", sel[:n], last, c.kept, c.last)
			}
		})
	}
}
