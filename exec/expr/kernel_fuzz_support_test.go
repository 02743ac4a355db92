package expr_test

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// Support for the kernel fuzz test: positions, PROCTIME().

// placeExpressions gives every expression that can fail its own position
// (line k for the k-th), as the binder gives them theirs, so that the test
// checks which expression a row error names.
func placeExpressions(e plan.Expr) {
	k := 0
	next := func(p *plan.Pos) {
		if !p.IsKnown() { // a shared subexpression keeps its first
			k++
			*p = plan.Pos{Offset: 100 * k, Line: k, Col: 1}
		}
	}
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.Unary:
			next(&x.Pos)
		case *plan.Binary:
			next(&x.Pos)
		case *plan.Cast:
			next(&x.Pos)
		case *plan.Func:
			next(&x.Pos)
		}
		return true
	})
}

// isProcTime reports a call of PROCTIME(), whose value is the wall clock.
func isProcTime(e plan.Expr) bool {
	f, ok := e.(*plan.Func)
	return ok && f.Name == "proctime"
}

// runProcTime checks PROCTIME(): every row holds the time of the
// evaluation, which the clock brackets.
func (c *kcase) runProcTime() string {
	x, err := expr.Compile(c.e, schema)
	if err != nil {
		return c.describe(fmt.Sprintf("Compile: %v", err))
	}
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rec := expr.MakeBatch(alloc, schema, c.rows, c.sliced)
	defer rec.Release()
	before := time.Now().UnixMilli()
	got, err := x.Eval(alloc, rec)
	after := time.Now().UnixMilli()
	if err != nil {
		return c.describe(fmt.Sprintf("Eval: %v", err))
	}
	defer got.Release()
	for i := range got.Len() {
		if v := types.DatumAt(got, i, c.e.Type()); v.Null || v.I < before || v.I > after {
			return c.describe(fmt.Sprintf("row %d: PROCTIME() = %s, not between %d and %d", i, types.Format(v, c.e.Type()), before, after))
		}
	}
	return ""
}
