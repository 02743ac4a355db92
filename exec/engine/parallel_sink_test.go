package engine

import (
	"strings"
	"testing"
)

// TestBlackholeSinkRunsAtItsInputsParallelism: a sink that discards its
// rows is not gathered into one instance (physical.Options.ParallelRoot):
// its plan has no single exchange at the root and it runs as many
// instances as the operator before it, flushing and counting every row; a
// file sink is still gathered.
func TestBlackholeSinkRunsAtItsInputsParallelism(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, "CREATE STREAM s (k BIGINT, v BIGINT);")
	plan := text(run(t, s, "EXPLAIN CREATE SINK k AS SELECT k, COUNT(*) AS n FROM s GROUP BY k WITH (connector = 'blackhole');"))
	if strings.Contains(plan, "Exchange single") {
		t.Errorf("the blackhole sink's plan gathers its input:\n%s", plan)
	}
	plan = text(run(t, s, "EXPLAIN CREATE SINK f AS SELECT k, COUNT(*) AS n FROM s GROUP BY k WITH (connector = 'file', path = 'out.jsonl', format = 'json');"))
	if !strings.Contains(plan, "Exchange single") {
		t.Errorf("the file sink's plan does not gather its input:\n%s", plan)
	}
	run(t, s, `CREATE SINK k AS SELECT k, COUNT(*) AS n FROM s GROUP BY k WITH (connector = 'blackhole');
		INSERT INTO s VALUES (1, 1), (2, 2), (3, 3), (4, 4), (1, 5);
		FLUSH;`)
	analyzed := text(run(t, s, "EXPLAIN ANALYZE k;"))
	if !strings.Contains(analyzed, "Sink k (blackhole)  [instances=2 rows_in=4 ") {
		t.Errorf("the blackhole sink does not run as two instances that received every group's first count (the local aggregate merged the two rows of key 1):\n%s", analyzed)
	}
}
