package agg

import (
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/exectest"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

func TestHashAggBigint(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0},
		"count(*)", "count(1)", "sum(1)", "avg(1)", "min(1)", "max(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 10\n+I 1 20\n+I 2 5", Want: `
+I 1 2 2 30 15 10 20
+I 2 1 1 5 5 5 5`},
		// Retracting the current maximum finds the next one.
		{In: "bigint bigint\n-D 1 20", Want: `
-U 1 2 2 30 15 10 20
+U 1 1 1 10 10 10 10`},
		// A NULL argument counts for COUNT(*) only.
		{In: "bigint bigint\n+I 2 NULL", Want: `
-U 2 1 1 5 5 5 5
+U 2 2 1 5 5 5 5`},
		// A group that loses its last row is deleted...
		{In: "bigint bigint\n-D 1 10", Want: `-D 1 1 1 10 10 10 10`},
		// ... and comes back as new.
		{In: "bigint bigint\n+I 1 7", Want: `+I 1 1 1 7 7 7 7`},
		// An update pair.
		{In: "bigint bigint\n-U 1 7\n+U 1 8", Want: `
-U 1 1 1 7 7 7 7
+U 1 1 1 8 8 8 8`},
		// A group created and emptied within one batch emits nothing.
		{In: "bigint bigint\n+I 3 1\n-D 3 1", Want: ``},
		// Several changes to one group emit once, after the whole batch.
		{In: "bigint bigint\n+I 2 -4\n+I 2 6\n-D 2 NULL", Want: `
-U 2 2 1 5 5 5 5
+U 2 3 3 7 2.3333333333333335 -4 6`},
		// Retracting the minimum and the maximum of a group at once.
		{In: "bigint bigint\n-D 2 -4\n-D 2 6", Want: `
-U 2 3 3 7 2.3333333333333335 -4 6
+U 2 1 1 5 5 5 5`},
	})
}

func TestHashAggUnchangedEmitsNothing(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "max(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 10", Want: `+I 1 10`},
		{In: "bigint bigint\n+I 1 5", Want: ``},
		{In: "bigint bigint\n-D 1 5", Want: ``},
		{In: "bigint bigint\n+I 1 10", Want: ``},
		{In: "bigint bigint\n-D 1 10", Want: ``},
		{In: "bigint bigint\n-U 1 10\n+U 1 10", Want: ``},
		{In: "bigint bigint\n-D 1 10", Want: `-D 1 10`},
	})
}

func TestHashAggNullKeysAndArgs(t *testing.T) {
	cfg := testConfig(t, "varchar bigint", []int{0}, "count(*)", "count(1)", "sum(1)", "min(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "varchar bigint\n+I NULL 1\n+I NULL NULL\n+I a NULL\n+I '' 3", Want: `
+I NULL 2 1 1 1
+I a 1 0 NULL NULL
+I '' 1 1 3 3`},
		{In: "varchar bigint\n-D NULL 1", Want: `
-U NULL 2 1 1 1
+U NULL 1 0 NULL NULL`},
		{In: "varchar bigint\n-D NULL NULL\n-D a NULL", Want: `
-D NULL 1 0 NULL NULL
-D a 1 0 NULL NULL`},
		{In: "varchar bigint\n+I NULL 4", Want: `+I NULL 1 1 4 4`},
	})
}

func TestHashAggNullIntKey(t *testing.T) {
	cfg := testConfig(t, "date bigint", []int{0}, "sum(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "date bigint\n+I NULL 1\n+I 2024-01-01 2\n+I NULL 3", Want: `
+I NULL 4
+I 2024-01-01 2`},
		{In: "date bigint\n-D NULL 1\n-D NULL 3", Want: `-D NULL 4`},
		{In: "date bigint\n+I NULL 5", Want: `+I NULL 5`},
	})
}

func TestHashAggDistinct(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0},
		"count(distinct 1)", "sum(distinct 1)", "avg(distinct 1)", "count(1)", "max(distinct 1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint\n+I 1 5\n+I 1 5\n+I 1 7\n+I 1 NULL", Want: `+I 1 2 12 6 3 7`},
		{In: "bigint bigint\n-D 1 5", Want: `
-U 1 2 12 6 3 7
+U 1 2 12 6 2 7`},
		{In: "bigint bigint\n-D 1 5", Want: `
-U 1 2 12 6 2 7
+U 1 1 7 7 1 7`},
		{In: "bigint bigint\n+I 1 7\n-D 1 7", Want: ``},
		{In: "bigint bigint\n-D 1 NULL\n-D 1 7", Want: `-D 1 1 7 7 1 7`},
	})
}

func TestHashAggDistinctStringsAndDoubles(t *testing.T) {
	cfg := testConfig(t, "varchar double", nil, "count(distinct 0)", "sum(distinct 1)", "count(distinct 1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "varchar double\n+I a 1.5\n+I b 1.5\n+I a -0\n+I A 0", Want: `+I 3 1.5 2`},
		{In: "varchar double\n-D a 1.5\n-D b 1.5", Want: `
-U 3 1.5 2
+U 2 0 1`},
	})
}

func TestHashAggGlobalEmptyInput(t *testing.T) {
	cfg := testConfig(t, "bigint", nil, "count(*)", "sum(0)", "min(0)", "avg(0)", "count(0)")
	runSteps(t, cfg, []exectest.Step{
		{Ctl: exectest.Watermark(0), Want: `+I 0 NULL NULL NULL 0`},
		{Ctl: exectest.Watermark(1), Want: ``},
		{In: "bigint\n+I 5", Want: `
-U 0 NULL NULL NULL 0
+U 1 5 5 5 1`},
		{In: "bigint\n-D 5", Want: `
-U 1 5 5 5 1
+U 0 NULL NULL NULL 0`},
		{In: "bigint\n+I NULL\n-D NULL", Want: ``},
	})
}

func TestHashAggGlobalFirstBatch(t *testing.T) {
	cfg := testConfig(t, "bigint", nil, "count(*)", "max(0)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint\n+I 5\n+I 6", Want: `+I 2 6`},
		{Ctl: exectest.Watermark(1), Want: ``},
		{In: "bigint\n+I 1", Want: `
-U 2 6
+U 3 6`},
	})
	// An empty batch before anything else emits the initial row.
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint", Want: `+I 0 NULL`},
		{In: "bigint", Want: ``},
	})
}

func TestHashAggMultiColumnKeys(t *testing.T) {
	cfg := testConfig(t, "varchar date bigint", []int{1, 0}, "sum(2)", "count(*)")
	runSteps(t, cfg, []exectest.Step{
		{In: `varchar date bigint
+I x 2024-01-01 1
+I y 2024-01-01 2
+I x 2024-01-02 3
+I x 2024-01-01 4
+I NULL 2024-01-01 5
+I x NULL 6
+I NULL NULL 7
+I '' NULL 8`, Want: `
+I 2024-01-01 x 5 2
+I 2024-01-01 y 2 1
+I 2024-01-02 x 3 1
+I 2024-01-01 NULL 5 1
+I NULL x 6 1
+I NULL NULL 7 1
+I NULL '' 8 1`},
		{In: "varchar date bigint\n-D x 2024-01-01 1\n-D NULL NULL 7", Want: `
-U 2024-01-01 x 5 2
+U 2024-01-01 x 4 1
-D NULL NULL 7 1`},
	})
}

func TestHashAggTypes(t *testing.T) {
	in := "double decimal(10,2) varchar date timestamp(3) boolean"
	cfg := testConfig(t, in, nil,
		"min(0)", "max(0)", "sum(0)", "avg(0)",
		"min(1)", "max(1)", "sum(1)", "avg(1)",
		"min(2)", "max(2)", "min(3)", "max(3)", "min(4)", "max(4)", "min(5)", "max(5)")
	hdr := in + "\n"
	runSteps(t, cfg, []exectest.Step{
		{In: hdr + `+I 1.5 10.25 b 2024-01-02 2024-01-01T00:00:01.5 true
+I -2.5 3.10 a 2024-01-01 2024-01-01T00:00:00 false
+I NULL NULL NULL NULL NULL NULL`,
			Want: `+I -2.5 1.5 -1 -0.5 3.10 10.25 13.35 6.675 a b 2024-01-01 2024-01-02 2024-01-01 00:00:00.000 2024-01-01 00:00:01.500 false true`},
		{In: hdr + `-D -2.5 3.10 a 2024-01-01 2024-01-01T00:00:00 false`, Want: `
-U -2.5 1.5 -1 -0.5 3.10 10.25 13.35 6.675 a b 2024-01-01 2024-01-02 2024-01-01 00:00:00.000 2024-01-01 00:00:01.500 false true
+U 1.5 1.5 1.5 1.5 10.25 10.25 10.25 10.25 b b 2024-01-02 2024-01-02 2024-01-01 00:00:01.500 2024-01-01 00:00:01.500 true true`},
		{In: hdr + `-D 1.5 10.25 b 2024-01-02 2024-01-01T00:00:01.5 true`, Want: `
-U 1.5 1.5 1.5 1.5 10.25 10.25 10.25 10.25 b b 2024-01-02 2024-01-02 2024-01-01 00:00:01.500 2024-01-01 00:00:01.500 true true
+U NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL`},
	})
}

func TestHashAggTypesAppendOnly(t *testing.T) {
	in := "varchar double decimal(10,2) date"
	cfg := testConfig(t, in, []int{0}, "min(1)", "max(1)", "min(2)", "max(2)", "min(3)", "max(3)", "max(0)")
	cfg.AppendOnly = true
	hdr := in + "\n"
	runSteps(t, cfg, []exectest.Step{
		{In: hdr + "+I k 1.5 2.00 2024-01-02\n+I k NULL NULL NULL", Want: `+I k 1.5 1.5 2.00 2.00 2024-01-02 2024-01-02 k`},
		{In: hdr + "+I k 0.5 3.00 2024-01-01", Want: `
-U k 1.5 1.5 2.00 2.00 2024-01-02 2024-01-02 k
+U k 0.5 1.5 2.00 3.00 2024-01-01 2024-01-02 k`},
		{In: hdr + "+I k 1 2.50 2024-01-01", Want: ``},
		{In: hdr + "-D k 1 2.50 2024-01-01", Err: accum.ErrAppendOnly},
	})
}

func TestHashAggFloatSumRetraction(t *testing.T) {
	cfg := testConfig(t, "bigint double", []int{0}, "sum(1)", "avg(1)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint double\n+I 1 1e20\n+I 1 1\n+I 1 Inf", Want: `+I 1 Infinity Infinity`},
		{In: "bigint double\n-D 1 Inf", Want: `
-U 1 Infinity Infinity
+U 1 100000000000000000000 50000000000000000000`},
		{In: "bigint double\n-D 1 1e20", Want: `
-U 1 100000000000000000000 50000000000000000000
+U 1 1 1`},
	})
}

func TestHashAggCountNull(t *testing.T) {
	cfg := testConfig(t, "bigint bigint", []int{0}, "count(*)", "count(1)")
	cfg.Input = append(cfg.Input, types.NullT)
	cfg.Aggs = append(cfg.Aggs, accum.Spec{Func: plan.AggCount, Arg: 2, ArgType: types.NullT, Type: types.BigIntT}, accum.Spec{Func: plan.AggCount, Distinct: true, Arg: 2, ArgType: types.NullT, Type: types.BigIntT})
	cfg.Names = append(cfg.Names, "count(null)", "count(distinct null)")
	runSteps(t, cfg, []exectest.Step{
		{In: "bigint bigint null\n+I 1 5 NULL\n+I 1 NULL NULL", Want: `+I 1 2 1 0 0`},
		{In: "bigint bigint null\n-D 1 5 NULL", Want: `
-U 1 2 1 0 0
+U 1 1 0 0 0`},
	})
}
