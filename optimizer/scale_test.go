package optimizer_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/optimizer"
	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/optimizer/rules"
	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// The shapes of the planning benchmarks (exec/engine/plan_bench_test.go),
// checked here by the work they cause — nodes visited, bytes allocated —
// which, unlike time, does not depend on the machine's load.

// joinQuery is opttest.JoinQuery with its DDL as one script.
func joinQuery(n int, seed uint64) (ddl, query string) {
	stmts, query := opttest.JoinQuery(n, seed)
	return strings.Join(stmts, ";\n") + ";", query
}

// unionQuery is a UNION ALL of n filters of one stream.
func unionQuery(n int) (ddl, query string) {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("SELECT a, b FROM t WHERE a = %d", i)
	}
	return "CREATE STREAM t (a BIGINT, b BIGINT);", strings.Join(parts, " UNION ALL ")
}

// normalize binds and optimizes query, returning the bound plan's size,
// the trace and the bytes optimization allocated.
func normalize(t *testing.T, ddl, query string) (nodes int, tr *optimizer.Trace, bytes uint64) {
	t.Helper()
	cat, err := plantest.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if err := plantest.ExecDDL(cat, ddl); err != nil {
		t.Fatal(err)
	}
	q, err := plantest.BindText(cat, query, planner.Continuous)
	if err != nil {
		t.Fatal(err)
	}
	plan.WalkNodes(q.Root, func(plan.Node) { nodes++ })
	c := &rules.Context{Md: q.Md, Fold: expr.EvalConst, Cost: &cost.Estimator{Md: q.Md}}
	bytes = plantest.AllocBytes(func() { _, tr, err = optimizer.Normalize(c, q.Root, optimizer.Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	return nodes, tr, bytes
}

// maxVisitsPerNode bounds the driver's visits per node of the bound plan,
// over every pass of every phase: a handful of passes per phase, each
// visiting a node once, plus the new nodes rules make.
const maxVisitsPerNode = 25

// TestDeepJoinTreeNormalizes plans comma joins of 64 and 120 tables. The
// WHERE clause sits above a left-deep tree of cross joins, 119 deep; its
// conjuncts are pushed into the tree. A pass used to move them one level,
// so the phase needed as many passes as the tree is deep, and from 100
// tables failed with "did not reach a fixed point in 100 passes"; the
// driver now rewrites the filters a rule pushes down in the same pass.
func TestDeepJoinTreeNormalizes(t *testing.T) {
	for _, n := range []int{64, 120} {
		ddl, query := joinQuery(n, 1)
		nodes, tr, _ := normalize(t, ddl, query)
		t.Logf("%d tables: %d visits for %d nodes", n, tr.Visits, nodes)
		if tr.Visits > maxVisitsPerNode*nodes {
			t.Errorf("%d tables: %d visits for %d nodes (more than %d per node)", n, tr.Visits, nodes, maxVisitsPerNode)
		}
		if len(tr.Decisions) != 1 || !strings.Contains(tr.Decisions[0].Search, fmt.Sprintf("greedy operator ordering over %d relations", n)) {
			t.Errorf("%d tables: want one greedy join order decision, got %+v", n, tr.Decisions)
		}
	}
}

// TestUnionAllNormalizesLinearly optimizes UNION ALLs of 1,000 and 4,000
// branches: visits stay a constant number per node, and the bytes
// allocated grow linearly.
func TestUnionAllNormalizesLinearly(t *testing.T) {
	var bytes [2]uint64
	for i, n := range []int{1000, 4000} {
		ddl, query := unionQuery(n)
		nodes, tr, b := normalize(t, ddl, query)
		t.Logf("%d branches: %d visits for %d nodes, %d bytes", n, tr.Visits, nodes, b)
		if tr.Visits > maxVisitsPerNode*nodes {
			t.Errorf("%d branches: %d visits for %d nodes", n, tr.Visits, nodes)
		}
		bytes[i] = b
	}
	if ratio := float64(bytes[1]) / float64(bytes[0]); ratio > 6 {
		t.Errorf("4000 branches allocate %.1f× the bytes of 1000", ratio)
	}
}

// checkNormalizesLinearly optimizes make(n) and make(4n) over ddl and
// fails unless the larger allocates at most 6× the bytes of the smaller.
func checkNormalizesLinearly(t *testing.T, n int, ddl string, make func(n int) string) {
	t.Helper()
	_, _, small := normalize(t, ddl, make(n))
	_, _, large := normalize(t, ddl, make(4*n))
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("size %d allocates %.1f× the bytes of size %d (%d vs %d): not linear", 4*n, ratio, n, large, small)
	}
}

// TestDeepExpressionNormalizesLinearly optimizes a + 1 + 1 + ..., which
// the parser nests one level per term, in a select list and in WHERE.
// FoldConstants asked whether each level's whole subtree was volatile
// before seeing that its operands were not constants, a walk of the
// subtree at every level.
func TestDeepExpressionNormalizesLinearly(t *testing.T) {
	deep := func(n int) string { return "a" + strings.Repeat(" + 1", n) }
	ddl := "CREATE STREAM t (a BIGINT, b BIGINT);"
	checkNormalizesLinearly(t, 500, ddl, func(n int) string { return "SELECT " + deep(n) + " AS d FROM t" })
	checkNormalizesLinearly(t, 500, ddl, func(n int) string { return "SELECT a FROM t WHERE " + deep(n) + " > 5" })
}

// TestWideSelectNormalizesLinearly optimizes select lists of 1,000 and
// 4,000 columns and expressions over a stream as wide. PruneColumns
// gathered the columns an operator reads with a set union per
// expression, copying the set at every step.
func TestWideSelectNormalizesLinearly(t *testing.T) {
	const width = 4000
	cols := make([]string, width)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d BIGINT", i)
	}
	ddl := "CREATE STREAM w (" + strings.Join(cols, ", ") + ");"
	list := func(format string) func(n int) string {
		return func(n int) string {
			items := make([]string, n)
			for i := range items {
				items[i] = fmt.Sprintf(format, i, i)
			}
			return "SELECT " + strings.Join(items, ", ") + " FROM w WHERE c1 > 0"
		}
	}
	checkNormalizesLinearly(t, 1000, ddl, list("c%d AS x%d"))
	checkNormalizesLinearly(t, 1000, ddl, list("c%d + 1 AS x%d"))
}
