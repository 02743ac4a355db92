package engine

import (
	"regexp"
	"testing"
)

// TestDedupViewResumesWithItsKeys: a view over a de-duplicated stream is
// checkpointed (the Dedup operator is exec.Stateful), and after a restart
// it resumes from its checkpoint with the keys it had seen, so rows
// inserted again after the restart — and those inserted between the
// checkpoint and the restart, which its source reads again — are still
// dropped.
func TestDedupViewResumesWithItsKeys(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM s (k INT, v INT) WITH (dedup_key = 'k', dedup_window = '1h');
		INSERT INTO s VALUES (1, 10), (2, 20), (1, 11);
		CREATE MATERIALIZED VIEW v AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;
		FLUSH;`)
	checkpointNow(t, e, "v")
	run(t, s, `INSERT INTO s VALUES (2, 21), (3, 30); FLUSH;`)
	want := "1 | 1 | 10\n2 | 1 | 20\n3 | 1 | 30\n"
	if got := sorted(text(run(t, s, "SELECT * FROM v;"))); got != want {
		t.Fatalf("before the restart v holds\n%s\nwant\n%s", got, want)
	}
	e, s = restart(t, e, cfg)
	res := run(t, s, "SELECT * FROM v;")
	wantNotice(t, res, "materialized view v resumed from its checkpoint")
	if got := sorted(text(res)); got != want {
		t.Fatalf("after the restart v holds\n%s\nwant\n%s", got, want)
	}
	run(t, s, `INSERT INTO s VALUES (1, 12), (3, 31), (4, 40); FLUSH;`)
	if got, want := sorted(text(run(t, s, "SELECT * FROM v;"))), "1 | 1 | 10\n2 | 1 | 20\n3 | 1 | 30\n4 | 1 | 40\n"; got != want {
		t.Fatalf("after rows inserted again v holds\n%s\nwant\n%s", got, want)
	}
}

// TestDedupExplainAnalyze: EXPLAIN ANALYZE shows the Dedup operator's rows
// in and its own counters: duplicates dropped, exact lookups and the
// lookups that found nothing (Bloom false positives).
func TestDedupExplainAnalyze(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM s (k BIGINT, name VARCHAR) WITH (dedup_key = 'k, name', dedup_window = '10m');
		CREATE MATERIALIZED VIEW v AS SELECT name, COUNT(*) AS n FROM s GROUP BY name;
		INSERT INTO s VALUES (1, 'a'), (2, 'b'), (1, 'a'), (1, 'b');
		INSERT INTO s VALUES (2, 'b'), (3, 'c');
		FLUSH;`)
	plan := text(run(t, s, "EXPLAIN ANALYZE v;"))
	want := `Dedup key=\[k, name\] window=10m fpr=0\.01 time=processing  \[instances=1 rows_in=6 rows_out=4 .* duplicates=2 exact_lookups=([0-9]+) bloom_false_positives=([0-9]+) state=4 keys/`
	m := regexp.MustCompile(want).FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("EXPLAIN ANALYZE does not match %s:\n%s", want, plan)
	}
	if lookups, fp := atof(m[1]), atof(m[2]); lookups != 2+fp {
		t.Errorf("%v exact lookups, %v false positives: want 2 more lookups than false positives", lookups, fp)
	}
}
