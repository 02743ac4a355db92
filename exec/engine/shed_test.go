package engine

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestViewShedsLoad runs a view over a generator offered far more events
// per second than it can make and count, with max_latency (a regular
// expression in an always-true filter makes the count slower than the
// generator, so rows queue however fast the machine): the query
// drops rows at its source, SHOW QUERIES and EXPLAIN ANALYZE say how many
// and at what fraction, and the view counts exactly the rows read less
// the rows shed.
func TestViewShedsLoad(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '3000000', rate = '100000000');
		CREATE MATERIALIZED VIEW n WITH (max_latency = '5ms') AS SELECT COUNT(*) AS c FROM bid
			WHERE COALESCE(LENGTH(REGEXP_EXTRACT(extra, '(.*)([xyz])(.*)', 3)), 0) >= 0;
		FLUSH;`)
	row := strings.Split(showRow(t, s, "QUERIES", "n"), " | ")
	if len(row) < 14 {
		t.Fatalf("SHOW QUERIES row %q: want at least 14 columns", row)
	}
	read, _ := strconv.ParseInt(row[4], 10, 64)
	shed, _ := strconv.ParseInt(row[12], 10, 64)
	if shed <= 0 || read <= shed {
		t.Fatalf("read %d rows, shed %d: want some shed", read, shed)
	}
	count, err := strconv.ParseInt(strings.TrimSpace(text(run(t, s, "SELECT c FROM n"))), 10, 64)
	if err != nil || count != read-shed {
		t.Fatalf("the view counts %d (%v), want the %d rows read less the %d shed", count, err, read, shed)
	}
	plan := text(run(t, s, "EXPLAIN ANALYZE n"))
	if !strings.Contains(plan, "load shedding: max_latency=5ms, dropping ") || !strings.Contains(plan, "shed_rows="+row[12]) {
		t.Fatalf("EXPLAIN ANALYZE shows no shedding:\n%s", plan)
	}
}

// TestShedOptions checks the options' errors, SHOW CREATE, and that a
// view keeps its shedding across a restart (and one that sheds whole
// windows runs again).
func TestShedOptions(t *testing.T) {
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, "CREATE STREAM s (a BIGINT, ts TIMESTAMP(3))")
	for _, c := range []struct{ stmt, want string }{
		{"CREATE MATERIALIZED VIEW v WITH (shed = 'random') AS SELECT a FROM s", "shed needs max_latency"},
		{"CREATE MATERIALIZED VIEW v WITH (max_latency = 'soon') AS SELECT a FROM s", "max_latency must be a duration"},
		{"CREATE MATERIALIZED VIEW v WITH (max_latency = '1s', shed = 'window') AS SELECT a FROM s", "shed = 'window' needs a query that aggregates TUMBLE windows"},
		{"CREATE MATERIALIZED VIEW v WITH (max_latency = '1s', shed = 'some') AS SELECT a FROM s", "shed must be 'random', 'window' or 'none'"},
	} {
		if _, err := execOne(t, s, c.stmt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.stmt, err, c.want)
		}
	}
	run(t, s, `CREATE MATERIALIZED VIEW v WITH (max_latency = '250ms') AS SELECT a FROM s;
		CREATE MATERIALIZED VIEW quiet WITH (max_latency = '1s', shed = 'none') AS SELECT a FROM s;
		CREATE SINK k FROM v WITH (connector = 'blackhole', max_latency = '2s', shed = 'random');
		CREATE MATERIALIZED VIEW w WITH (max_latency = '1s', shed = 'window') AS SELECT window_start, COUNT(*) AS n FROM TUMBLE(s, ts, INTERVAL '1' SECOND) GROUP BY window_start;`)
	want := map[string]string{
		"v":     "CREATE MATERIALIZED VIEW v WITH (max_latency = '250ms', shed = 'random') AS SELECT a FROM s",
		"quiet": "CREATE MATERIALIZED VIEW quiet AS SELECT a FROM s",
		"k":     "CREATE SINK k FROM v WITH (connector = 'blackhole', max_latency = '2s', shed = 'random')",
		"w":     "CREATE MATERIALIZED VIEW w WITH (max_latency = '1s', shed = 'window') AS SELECT window_start",
	}
	check := func(s *Session) {
		t.Helper()
		for name, w := range want {
			if got := text(run(t, s, "SHOW CREATE "+name)); !strings.Contains(got, w) {
				t.Errorf("SHOW CREATE %s = %q, want %q", name, got, w)
			}
		}
	}
	check(s)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	_, s2 := reopen(t, cfg)
	check(s2)
	// The view that sheds whole windows runs again after the restart.
	run(t, s2, "INSERT INTO s VALUES (1, '2024-01-01 00:00:00.500'), (2, '2024-01-01 00:00:00.900'); FLUSH;")
	if got := text(run(t, s2, "SELECT window_start, n FROM w")); got != "2024-01-01 00:00:00.000 | 2\n" {
		t.Errorf("after the restart w holds %q", got)
	}
}
