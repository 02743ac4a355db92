package expr_test

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// Support for the kernel fuzz test: batches, positions, PROCTIME().

// buildBatch builds a record of rows over the schema, as a slice of a
// larger record (three rows before, two after) when sliced.
func buildBatch(alloc memory.Allocator, rows [][]types.Datum, sliced bool) arrow.RecordBatch {
	names := make([]string, len(schema))
	for j := range names {
		names[j] = fmt.Sprintf("c%d", j)
	}
	if !sliced {
		return types.BuildRecord(alloc, names, schema, rows)
	}
	pad := make([]types.Datum, len(schema))
	for j := range pad {
		pad[j] = types.NullDatum
		if len(rows) > 0 {
			pad[j] = rows[len(rows)-1][j]
		}
	}
	all := append(append([][]types.Datum{pad, pad, pad}, rows...), pad, pad)
	full := types.BuildRecord(alloc, names, schema, all)
	defer full.Release()
	cols := make([]arrow.Array, len(schema))
	for j := range cols {
		cols[j] = array.NewSlice(full.Column(j), 3, int64(3+len(rows)))
		defer cols[j].Release()
	}
	return array.NewRecordBatch(full.Schema(), cols, int64(len(rows)))
}

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
	rec := buildBatch(alloc, c.rows, c.sliced)
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
