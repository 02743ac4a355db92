package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/optimizer/opttest"
	"github.com/eddysql/eddy/sql"
)

// The planning benchmarks plan a statement as the engine does — parse,
// bind, the rule phases, physical planning — for the query shapes whose
// planning cost must stay near-linear in their size (docs/benchmarks.md,
// "Planning cost"). Besides wall time they report the process's CPU time
// per operation (cpu-ms/op), which the load of a shared machine does not
// inflate. Run them as
//
//	go test ./exec/engine -run XXX -bench BenchmarkPlan -count 5 -cpu 1

// planBenchSession opens an in-memory engine and runs ddl in it.
func planBenchSession(b *testing.B, ddl ...string) *Session {
	b.Helper()
	s := newSession(b, Config{Parallelism: 2})
	for _, text := range ddl {
		run(b, s, text)
	}
	return s
}

// benchStatement parses the statement text and runs do on it, b.N times,
// reporting allocations and CPU time.
func benchStatement(b *testing.B, text string, do func(st sql.Stmt) error) {
	b.Helper()
	b.ReportAllocs()
	defer reportCPU(b, processCPU())
	for b.Loop() {
		if err := do(mustParse(b, text)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchPlan plans the SELECT text (as a pull query, what a SELECT is)
// through physical planning, b.N times.
func benchPlan(b *testing.B, s *Session, text string) {
	b.Helper()
	benchStatement(b, text, func(st sql.Stmt) error {
		sel, ok := st.(*sql.Select)
		if !ok {
			return fmt.Errorf("not a SELECT: %s", text)
		}
		_, err := s.eng.planQuery(sel.Query, st.Source(), sql.Pos{Line: 1, Col: 1}, snapshot, s.settings())
		return err
	})
}

// reportCPU reports the process's CPU time per operation since start
// (cpu-ms/op), when it is known.
func reportCPU(b *testing.B, start time.Duration) {
	if used := processCPU() - start; start > 0 && b.N > 0 {
		b.ReportMetric(float64(used)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// unionAll joins n members made by member(i) with UNION ALL.
func unionAll(n int, member func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = member(i)
	}
	return strings.Join(parts, " UNION ALL ")
}

// BenchmarkPlanUnionAll5000 plans a UNION ALL of 5,000 constant SELECTs
// and of 5,000 filters of one stream.
func BenchmarkPlanUnionAll5000(b *testing.B) {
	b.Run("constants", func(b *testing.B) {
		s := planBenchSession(b)
		benchPlan(b, s, unionAll(5000, func(i int) string {
			if i == 0 {
				return "SELECT 0 AS x"
			}
			return fmt.Sprintf("SELECT %d", i)
		}))
	})
	b.Run("stream-filters", func(b *testing.B) {
		s := planBenchSession(b, "CREATE STREAM t (a BIGINT, b BIGINT)")
		benchPlan(b, s, unionAll(5000, func(i int) string { return fmt.Sprintf("SELECT a, b FROM t WHERE a = %d", i) }))
	})
}

// BenchmarkPlanJoin64 plans a comma-separated FROM of 64 tables joined as
// a random tree by equalities in WHERE, plus one filter.
func BenchmarkPlanJoin64(b *testing.B) {
	ddl, query := opttest.JoinQuery(64, 1)
	benchPlan(b, planBenchSession(b, ddl...), query)
}

// BenchmarkPlanDeepExpression plans expressions nested 4,000 deep (the
// parser nests a + 1 + 1 ... one level per term) in a select list and in
// WHERE, and WHERE clauses of 4,000 ORs and ANDs.
func BenchmarkPlanDeepExpression(b *testing.B) {
	const n = 4000
	deep := "a" + strings.Repeat(" + 1", n)
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf("a = %d", i)
	}
	for _, c := range []struct{ name, query string }{
		{"select", "SELECT " + deep + " AS d FROM t"},
		{"where", "SELECT a FROM t WHERE " + deep + " > 5"},
		{"or", "SELECT a FROM t WHERE " + strings.Join(terms, " OR ")},
		{"and", "SELECT a FROM t WHERE " + strings.Join(terms, " AND ")},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := planBenchSession(b, "CREATE STREAM t (a BIGINT, b BIGINT)")
			benchPlan(b, s, c.query)
		})
	}
}

// BenchmarkPlanWideSelect plans select lists of 4,000 columns and of
// 4,000 expressions over a stream of 4,000 columns.
func BenchmarkPlanWideSelect(b *testing.B) {
	const n = 4000
	cols, names, exprs := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		cols[i] = fmt.Sprintf("c%d BIGINT", i)
		names[i] = fmt.Sprintf("c%d", i)
		exprs[i] = fmt.Sprintf("c%d + 1 AS x%d", i, i)
	}
	ddl := "CREATE STREAM w (" + strings.Join(cols, ", ") + ")"
	for _, c := range []struct{ name, query string }{
		{"columns", "SELECT " + strings.Join(names, ", ") + " FROM w WHERE c1 > 0"},
		{"expressions", "SELECT " + strings.Join(exprs, ", ") + " FROM w WHERE c1 > 0"},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := planBenchSession(b, ddl)
			benchPlan(b, s, c.query)
		})
	}
}

// BenchmarkPlanExplainVerboseUnionAll5000 runs EXPLAIN VERBOSE of the
// stream-filter union: planning plus the text of the plan, the rules that
// fired and the decisions.
func BenchmarkPlanExplainVerboseUnionAll5000(b *testing.B) {
	s := planBenchSession(b, "CREATE STREAM t (a BIGINT, b BIGINT)")
	text := "EXPLAIN VERBOSE " + unionAll(5000, func(i int) string { return fmt.Sprintf("SELECT a, b FROM t WHERE a = %d", i) })
	benchStatement(b, text, func(st sql.Stmt) error {
		_, err := s.Execute(context.Background(), st)
		return err
	})
}
