package agg

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// approxConfig is APPROX_COUNT_DISTINCT(c1) GROUP BY c0 over (BIGINT, typ).
func approxConfig(typ types.T, appendOnly bool) HashConfig {
	return HashConfig{
		Input:      []types.T{types.BigIntT, typ},
		GroupKeys:  []int{0},
		Aggs:       []accum.Spec{{Func: plan.AggApproxCountDistinct, Arg: 1, ArgType: typ, Type: types.BigIntT}},
		Names:      []string{"g", "d"},
		AppendOnly: appendOnly,
	}
}

// TestApproxCountDistinct feeds 20,000 distinct values of each type (each
// twice, in two orders) to two groups and checks the estimates: within 2 %
// of the exact count, equal for both groups, and exact while small.
func TestApproxCountDistinct(t *testing.T) {
	for _, typ := range []types.T{types.BigIntT, types.DoubleT, types.VarcharT, types.DecimalT(12, 2)} {
		t.Run(typ.String(), func(t *testing.T) {
			alloc := exectest.Alloc(t)
			h := NewHashAgg(approxConfig(typ, true))
			if err := h.Open(context.Background(), exec.NewTestEnv(alloc)); err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			out := exectest.NewCollector(t, exectest.CollectorOptions{Format: exectest.Millis})
			const n = 20_000
			feed := func(g int, from, to, step int) {
				var b strings.Builder
				b.WriteString("bigint " + strings.ToLower(strings.ReplaceAll(typ.String(), " ", "")) + "\n")
				for i := from; i != to; i += step {
					v := fmt.Sprint(i)
					if typ.Kind == types.Decimal || typ.Kind == types.Double {
						v += ".5"
					}
					fmt.Fprintf(&b, "+I %d %s\n", g, v)
				}
				ch := exectest.Chunk(t, alloc, b.String())
				defer ch.Batch.Release()
				if err := h.Process(context.Background(), 0, ch, out); err != nil {
					t.Fatal(err)
				}
			}
			feed(1, 0, 10, 1)
			if rows := out.Rows(); len(rows) != 1 || rows[0] != "1 10" {
				t.Fatalf("ten values: %v", rows)
			}
			for lo := 0; lo < n; lo += 4000 {
				feed(1, lo, lo+4000, 1)
				feed(2, n-lo-1, n-lo-4001, -1)
				feed(2, lo, lo+4000, 1)
			}
			rows := out.Rows()
			if len(rows) != 2 {
				t.Fatalf("rows %v", rows)
			}
			var g1, e1, g2, e2 int64
			fmt.Sscan(rows[0], &g1, &e1)
			fmt.Sscan(rows[1], &g2, &e2)
			if e1 != e2 {
				t.Errorf("estimates depend on order: %d vs %d", e1, e2)
			}
			if e1 < n*98/100 || e1 > n*102/100 {
				t.Errorf("estimate %d for %d distinct values", e1, n)
			}
		})
	}
}

// TestApproxCountDistinctRetractions checks the exact fallback over an
// input that retracts, and that a retraction reaching a sketch is refused.
func TestApproxCountDistinctRetractions(t *testing.T) {
	alloc := exectest.Alloc(t)
	env := exec.NewTestEnv(alloc)
	const in = "bigint varchar"
	runOp(t, NewHashAgg(approxConfig(types.VarcharT, false)), env, []exectest.Step{{
		In: in + `
			+I 1 a
			+I 1 b
			+I 1 a`,
		Want: `+I 1 2`,
	}, {
		In: in + `
			-D 1 b`,
		Want: `-U 1 2
			+U 1 1`,
	}})
	runOp(t, NewHashAgg(approxConfig(types.VarcharT, true)), exec.NewTestEnv(alloc), []exectest.Step{{
		In: in + `
			+I 1 a`,
		Want: `+I 1 1`,
	}, {
		In: in + `
			-D 1 a`,
		Err: accum.ErrApproxRetraction,
	}})
}
