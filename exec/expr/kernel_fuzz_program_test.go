package expr_test

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// checkProgram runs the case's expression as a Calc does: a Program that
// projects it and whether it is NULL (one shared temporary) over the rows
// a filter keeps. The filter is none, an unrelated condition, e IS NOT
// NULL (so the filter computes the shared temporary, over every row), or
// both. Per row, the reference evaluates the filter's conjuncts in order
// until one is not TRUE, and the projections on the rows they all keep.
func (c *kcase) checkProgram(alloc memory.Allocator, rec arrow.RecordBatch) string {
	g := newGen(c.r)
	var filter plan.Expr
	notNull := &plan.IsNull{Arg: c.e, Negated: true}
	switch c.r.IntN(4) {
	case 1:
		filter = g.cond(1)
	case 2:
		filter = notNull
	case 3:
		filter = plan.MakeAnd([]plan.Expr{g.cond(1), notNull})
	}
	projs := []plan.Expr{c.e, &plan.IsNull{Arg: c.e}}
	p, err := expr.CompileProgram(filter, projs, schema)
	if err != nil {
		return c.describe(fmt.Sprintf("CompileProgram(filter %v): %v", filter, err))
	}
	var kept []int32
	failures := map[failure]bool{}
	var want [][]types.Datum
	var firstErr error
	for i, row := range c.rows {
		x := &refEval{row: row}
		v, keep, err := x.filter(filter)
		if err == nil && keep {
			var out []types.Datum
			for _, e := range projs {
				if v, err = x.eval(e); err != nil {
					break
				}
				out = append(out, v)
			}
			if err == nil {
				kept, want = append(kept, int32(i)), append(want, out)
			}
		}
		var re *refError
		switch {
		case errors.As(err, &re):
			failures[re.failure()] = true
			if firstErr == nil {
				firstErr = fmt.Errorf("row %d: %w", i, err)
			}
		case err != nil:
			return c.describe(fmt.Sprintf("reference: %v", err))
		}
	}
	cols := make([]arrow.Array, len(projs))
	n, sel, err := p.Eval(alloc, rec, cols, nil)
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	what := fmt.Sprintf("Program (filter %v)", filter)
	if len(failures) > 0 {
		var re *expr.RowError
		if err == nil || !errors.As(err, &re) || !failures[failure{re.Kind, re.Pos}] {
			return c.describe(fmt.Sprintf("%s: %v; the reference fails: %v", what, err, firstErr))
		}
		return ""
	}
	if err != nil {
		return c.describe(fmt.Sprintf("%s: %v; the reference has no error", what, err))
	}
	if sel == nil && n == len(c.rows) {
		sel = make([]int32, n)
		for i := range sel {
			sel[i] = int32(i)
		}
	}
	if n != len(kept) || fmt.Sprint(sel[:n]) != fmt.Sprint(kept) {
		return c.describe(fmt.Sprintf("%s keeps rows %v, the reference %v", what, sel[:n], kept))
	}
	for j, e := range projs {
		for k := range kept {
			got := types.DatumAt(cols[j], k, e.Type())
			if m := sameOutcome(got, nil, outcome{v: want[k][j]}, e.Type()); m != "" {
				return c.describe(fmt.Sprintf("%s, projection %s, row %d: %s", what, e, kept[k], m))
			}
		}
	}
	return ""
}

// filter evaluates a filter's conjuncts in order, as a Program does: keep
// is false from the first that is not TRUE on.
func (x *refEval) filter(f plan.Expr) (types.Datum, bool, error) {
	if f == nil {
		return null, true, nil
	}
	for _, cj := range plan.Conjuncts(f) {
		v, err := x.eval(cj)
		if err != nil {
			return null, false, err
		}
		if v.Null || !v.Bool() {
			return v, false, nil
		}
	}
	return null, true, nil
}
