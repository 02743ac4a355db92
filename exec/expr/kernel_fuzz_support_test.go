package expr_test

import (
	"fmt"
	"regexp"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// Support for the kernel fuzz test: positions, volatile functions.

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

// isVolatileCall reports a call of a volatile function (PROCTIME(),
// NOW(), RAND(), UUID()), whose value no reference can predict.
func isVolatileCall(e plan.Expr) bool {
	f, ok := e.(*plan.Func)
	return ok && plan.IsVolatile(f)
}

// uuidText is the form of UUID()'s values: version 4, variant 1.
var uuidText = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// runVolatile checks a volatile call by the properties of its values:
// PROCTIME() and NOW() hold the time of the evaluation, which the clock
// brackets; RAND() is in [0, 1); UUID() is a version 4 UUID's text, and
// no two rows share one.
func (c *kcase) runVolatile() string {
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
	switch {
	case expr.IsRowError(err):
		return "" // an argument failed (a cast), as it may
	case err != nil:
		return c.describe(fmt.Sprintf("Eval: %v", err))
	}
	defer got.Release()
	seen := map[string]bool{}
	name := c.e.(*plan.Func).Name
	for i := range got.Len() {
		v := types.DatumAt(got, i, c.e.Type())
		bad := v.Null && (name != "now" && name != "current_timestamp" || len(c.e.Children()) == 0) // NOW(NULL) is NULL
		switch name {
		case "rand":
			bad = bad || v.F < 0 || v.F >= 1
		case "uuid":
			bad = bad || !uuidText.MatchString(v.S) || seen[v.S]
			seen[v.S] = true
		default:
			bad = bad || !v.Null && (v.I < before-1000 || v.I > after)
		}
		if bad {
			return c.describe(fmt.Sprintf("row %d: %s = %s (clock between %d and %d)", i, c.e, types.Format(v, c.e.Type()), before, after))
		}
	}
	return ""
}
