package expr

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// TestRowErrorsCarryPositions checks that a row error names the position of
// the expression that failed, when the plan knows it: the innermost one
// that failed, also when the expression was folded at compile time, and
// that a Program then reports it without prefixing the projection's text.
func TestRowErrorsCarryPositions(t *testing.T) {
	at := func(line, col int) plan.Pos { return plan.Pos{Offset: 100*line + col, Line: line, Col: col} }
	in := []types.T{bigint, vchar}
	A, S := col(0, bigint), col(1, vchar)
	add := &plan.Binary{Op: plan.OpAdd, L: A, R: litI(1), Typ: bigint, Pos: at(2, 8)}
	abs := &plan.Func{Name: "abs", Args: []plan.Expr{&plan.Binary{Op: plan.OpSub, L: A, R: litI(0), Typ: bigint, Pos: at(1, 9)}}, Typ: bigint, Pos: at(1, 5)}
	rows := func(a int64, s string) [][]types.Datum { return [][]types.Datum{{i(a), types.StringDatum(s)}} }
	for _, c := range []struct {
		name string
		e    plan.Expr
		rows [][]types.Datum
		want string
		pos  plan.Pos
	}{
		{"overflow", add, rows(math.MaxInt64, ""), "BIGINT value is out of range in '9223372036854775807 + 1' at 2:8", at(2, 8)},
		{"the innermost that failed", &plan.Func{Name: "abs", Args: []plan.Expr{add}, Typ: bigint, Pos: at(2, 4)}, rows(math.MaxInt64, ""),
			"BIGINT value is out of range in '9223372036854775807 + 1' at 2:8", at(2, 8)},
		{"the function", abs, rows(math.MinInt64, ""), "BIGINT value is out of range in 'ABS(-9223372036854775808)' at 1:5", at(1, 5)},
		{"a cast", &plan.Cast{Arg: S, To: bigint, Pos: at(3, 4)}, rows(0, "abc"), "cannot cast 'abc' to BIGINT at 3:4", at(3, 4)},
		{"a folded constant", &plan.Cast{Arg: litS("x"), To: bigint, Pos: at(4, 1)}, rows(0, ""), "cannot cast 'x' to BIGINT at 4:1", at(4, 1)},
		{"no position", &plan.Cast{Arg: S, To: bigint}, rows(0, "abc"), "cannot cast 'abc' to BIGINT", plan.Pos{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			alloc := checkedAlloc(t)
			rec := makeBatch(alloc, in, c.rows, false)
			defer rec.Release()
			x, err := Compile(c.e, in)
			if err != nil {
				t.Fatal(err)
			}
			_, err = x.Eval(alloc, rec)
			var re *RowError
			if !errors.As(err, &re) || err.Error() != c.want || re.Pos != c.pos {
				t.Fatalf("Eval(%s) = %v, want %q at %v", c.e, err, c.want, c.pos)
			}
			// A Program names the projection only when the error has no
			// position to point with.
			p, err := CompileProgram(nil, []plan.Expr{c.e}, in)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = p.Eval(alloc, rec, make([]arrow.Array, 1), nil)
			want := c.want
			if !c.pos.IsKnown() {
				want = c.e.String() + ": " + want
			}
			if err == nil || err.Error() != want {
				t.Fatalf("Program: %v, want %q", err, want)
			}
			if strings.Count(err.Error(), " at ") > 1 {
				t.Fatalf("Program: %v names the position twice", err)
			}
		})
	}
}
