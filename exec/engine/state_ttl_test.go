package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// counter returns the value of an operator counter name=N in EXPLAIN
// ANALYZE of obj (summed over its instances), and the text.
func counter(t *testing.T, s *Session, obj, name string) (int, string) {
	t.Helper()
	out := text(run(t, s, "EXPLAIN ANALYZE "+obj+";"))
	m := regexp.MustCompile(name + `=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("EXPLAIN ANALYZE %s shows no %s:\n%s", obj, name, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n, out
}

// waitCounter waits until the counter reaches want.
func waitCounter(t *testing.T, s *Session, obj, name string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, out := counter(t, s, obj, name)
		if n == want {
			return
		}
		if n > want || time.Now().After(deadline) {
			t.Fatalf("%s of %s is %d, want %d:\n%s", name, obj, n, want, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStateTTLEvicts runs queries with a 200ms state TTL in real time: the
// idle groups and join keys leave with no input arriving (counted in
// EXPLAIN ANALYZE), the view keeps the evicted groups' rows, a later row
// of an evicted key starts a new group that replaces the old row in the
// view and joins only what came after; the TTL holds after a restart.
//
// The restart is checked on queries of their own with a 3s TTL, over
// streams fed just before the engine closes: with 200ms, a slow machine
// could evict the last rows before the final checkpoint, leaving nothing
// for the restarted queries to evict.
func TestStateTTLEvicts(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), Parallelism: 2, CheckpointInterval: 5 * time.Millisecond}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM s (k INT, v INT);
		CREATE STREAM r (k INT, w INT);
		CREATE MATERIALIZED VIEW per_k WITH (state_ttl = '200ms') AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;
		SET state_ttl = '200ms';
		CREATE MATERIALIZED VIEW j AS SELECT s.k, s.v, r.w FROM s JOIN r ON s.k = r.k;
		SET state_ttl = '0';
		CREATE MATERIALIZED VIEW forever AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		CREATE STREAM s2 (k INT, v INT);
		CREATE STREAM r2 (k INT, w INT);
		CREATE MATERIALIZED VIEW per_k2 WITH (state_ttl = '3s') AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s2 GROUP BY k;
		CREATE MATERIALIZED VIEW j2 WITH (state_ttl = '3s') AS SELECT s2.k, s2.v, r2.w FROM s2 JOIN r2 ON s2.k = r2.k;
		INSERT INTO s VALUES (1, 10), (1, 5), (2, 7);
		FLUSH;`)
	if got := sorted(text(run(t, s, "SELECT * FROM per_k;"))); got != "1 | 2 | 15\n2 | 1 | 7\n" {
		t.Fatalf("per_k holds\n%s", got)
	}
	waitCounter(t, s, "per_k", "ttl_evicted_groups", 2)
	waitCounter(t, s, "j", "ttl_evicted_rows", 3)
	if _, out := counter(t, s, "forever", "rows_in"); strings.Contains(out, "ttl_evicted") {
		t.Fatalf("a view without a TTL evicts:\n%s", out)
	}
	// The evicted groups' rows stay; key 1 comes back as a new group.
	run(t, s, `INSERT INTO s VALUES (1, 1);
		INSERT INTO r VALUES (1, 100);
		FLUSH;`)
	if got := sorted(text(run(t, s, "SELECT * FROM per_k;"))); got != "1 | 1 | 1\n2 | 1 | 7\n" {
		t.Fatalf("per_k after key 1 came back holds\n%s", got)
	}
	if got := sorted(text(run(t, s, "SELECT * FROM j;"))); got != "1 | 1 | 100\n" {
		t.Fatalf("j holds\n%s", got)
	}
	if got := sorted(text(run(t, s, "SELECT * FROM forever;"))); got != "1 | 3\n2 | 1\n" {
		t.Fatalf("forever holds\n%s", got)
	}
	// Once the new group and join rows of key 1 have left too, key 3
	// arrives on both sides of the 3s queries just before the engine
	// closes, so their last checkpoint holds its group and rows alone.
	waitCounter(t, s, "per_k", "ttl_evicted_groups", 3)
	waitCounter(t, s, "j", "ttl_evicted_rows", 5)
	run(t, s, `INSERT INTO s2 VALUES (3, 3);
		INSERT INTO r2 VALUES (3, 30);
		FLUSH;`)
	if n, out := counter(t, s, "per_k2", "ttl_evicted_groups"); n != 0 {
		t.Fatalf("per_k2 evicted %d groups before the restart:\n%s", n, out)
	}
	e.Close()

	// After a restart the queries keep their TTL: the restored groups and
	// keys count as accessed at the restore and leave 3s later.
	e = openEngine(t, cfg)
	defer e.Close()
	s = e.NewSession(SessionOptions{})
	if _, out := counter(t, s, "per_k", "ttl_evicted_groups"); !strings.Contains(out, "groups idle for 200ms are evicted") {
		t.Fatalf("per_k after the restart:\n%s", out)
	}
	waitCounter(t, s, "per_k2", "ttl_evicted_groups", 1)
	waitCounter(t, s, "j2", "ttl_evicted_rows", 2)
	if got := sorted(text(run(t, s, "SELECT * FROM per_k;"))); got != "1 | 1 | 1\n2 | 1 | 7\n" {
		t.Fatalf("per_k after the restart holds\n%s", got)
	}
	if got := sorted(text(run(t, s, "SELECT * FROM per_k2;"))); got != "3 | 1 | 3\n" {
		t.Fatalf("per_k2 after the restart holds\n%s", got)
	}
}
