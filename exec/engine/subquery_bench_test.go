package engine

import (
	"flag"
	"fmt"
	"testing"
)

var (
	subqBenchOuter  = flag.Int("subqbench.outer", 1_000_000, "outer rows of BenchmarkCorrelatedScalarSubquery")
	subqBenchGroups = flag.Int("subqbench.groups", 10_000, "inner groups (keys) of BenchmarkCorrelatedScalarSubquery")
)

// BenchmarkCorrelatedScalarSubquery measures issue 14's target: a view
// with a correlated scalar subquery over 1M outer rows and 10K inner
// groups, with 1% of the inner rows updated per batch, against the
// equivalent hand-written LEFT JOIN with an aggregate, in the same run.
// Each variant builds its view once (not timed); an iteration is one
// batch: an UPDATE of 1% of the inner rows and the FLUSH that waits for
// the view. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkCorrelatedScalarSubquery -benchtime 10x -count 3 -cpu 2
func BenchmarkCorrelatedScalarSubquery(b *testing.B) {
	views := map[string]string{
		"subquery":     "SELECT o.id, (SELECT SUM(v) FROM i WHERE i.k = o.k) AS s FROM o",
		"hand-written": "SELECT o.id, g.s FROM o LEFT JOIN (SELECT k, SUM(v) AS s FROM i GROUP BY k) g ON g.k = o.k",
	}
	inner := *subqBenchGroups * 10 // ten inner rows a group
	for _, name := range []string{"subquery", "hand-written"} {
		b.Run(name, func(b *testing.B) {
			s := newSession(b, Config{Parallelism: 2})
			run(b, s, fmt.Sprintf("CREATE STREAM og (id BIGINT, k BIGINT) WITH (connector = 'datagen', rows = %d, seed = 1, "+
				"'fields.id.kind' = 'sequence', 'fields.k.min' = 0, 'fields.k.max' = %d)", *subqBenchOuter, *subqBenchGroups-1))
			run(b, s, fmt.Sprintf("CREATE STREAM ig (id BIGINT, k BIGINT, v BIGINT) WITH (connector = 'datagen', rows = %d, seed = 2, "+
				"'fields.id.kind' = 'sequence', 'fields.k.min' = 0, 'fields.k.max' = %d, 'fields.v.min' = 0, 'fields.v.max' = 1000)",
				inner, *subqBenchGroups-1))
			run(b, s, "CREATE TABLE o (id BIGINT PRIMARY KEY, k BIGINT)")
			run(b, s, "CREATE TABLE i (id BIGINT PRIMARY KEY, k BIGINT, v BIGINT)")
			run(b, s, "INSERT INTO o SELECT id, k FROM og")
			run(b, s, "INSERT INTO i SELECT id, k, v FROM ig")
			run(b, s, "CREATE MATERIALIZED VIEW v AS "+views[name])
			run(b, s, "FLUSH")
			batch := inner / 100
			b.ResetTimer()
			for n := 0; b.Loop(); n++ {
				lo := (n * batch) % inner
				run(b, s, fmt.Sprintf("UPDATE i SET v = v + 1 WHERE id >= %d AND id < %d", lo, lo+batch))
				run(b, s, "FLUSH")
			}
		})
	}
}
