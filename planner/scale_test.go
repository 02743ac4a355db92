package planner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/planner/plantest"
)

// bindBytes binds text and returns the bytes binding allocated.
func bindBytes(t *testing.T, text string, ddl ...string) uint64 {
	t.Helper()
	cat, err := plantest.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if err := plantest.ExecDDL(cat, strings.Join(ddl, ";\n")); err != nil {
		t.Fatal(err)
	}
	var bindErr error
	n := plantest.AllocBytes(func() { _, bindErr = plantest.BindText(cat, text, planner.Continuous) })
	if bindErr != nil {
		t.Fatal(bindErr)
	}
	return n
}

// checkLinear binds the queries make(n) and make(4n) and fails unless the
// larger allocates at most 6× the bytes of the smaller (a cost quadratic
// in n allocates 16×). Bytes, not time: the test does not depend on the
// machine's load.
func checkLinear(t *testing.T, n int, make func(n int) string, ddl ...string) {
	t.Helper()
	small, large := bindBytes(t, make(n), ddl...), bindBytes(t, make(4*n), ddl...)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("binding the query of size %d allocates %.1f× the bytes of size %d (%d vs %d): not linear", 4*n, ratio, n, large, small)
	}
}

// TestUnionAllBindsLinearly binds a UNION ALL of many members: each is
// bound once, and one n-ary Union holds them all. Folding the members
// pairwise copied the inputs so far at every member.
func TestUnionAllBindsLinearly(t *testing.T) {
	union := func(sel string) func(n int) string {
		return func(n int) string {
			parts := make([]string, n)
			for i := range parts {
				parts[i] = fmt.Sprintf(sel, i)
			}
			return strings.Join(parts, " UNION ALL ")
		}
	}
	checkLinear(t, 1000, union("SELECT %d AS x"))
	checkLinear(t, 1000, union("SELECT a, b FROM t WHERE a = %d"), "CREATE STREAM t (a BIGINT, b BIGINT)")

	cat, err := plantest.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	q, err := plantest.BindText(cat, union("SELECT %d AS x")(5000), planner.Continuous)
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := q.Root.(*plan.Union); !ok || len(u.Ins) != 5000 {
		t.Fatalf("want one Union of 5000 inputs, got %s", plan.FormatLine(q.Md, q.Root))
	}
}

// TestLongConditionsBindLinearly binds WHERE clauses of thousands of ORs
// and ANDs, which the parser nests one level per term: the chain becomes
// one connective whose argument list is built once, where flattening each
// level into the next copied it at every level.
func TestLongConditionsBindLinearly(t *testing.T) {
	chain := func(op string) func(n int) string {
		return func(n int) string {
			terms := make([]string, n)
			for i := range terms {
				terms[i] = fmt.Sprintf("a = %d", i)
			}
			return "SELECT a FROM t WHERE " + strings.Join(terms, " "+op+" ")
		}
	}
	checkLinear(t, 1000, chain("OR"), "CREATE STREAM t (a BIGINT, b BIGINT)")
	checkLinear(t, 1000, chain("AND"), "CREATE STREAM t (a BIGINT, b BIGINT)")
}
