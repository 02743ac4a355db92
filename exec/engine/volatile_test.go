package engine

import (
	"strings"
	"testing"
	"time"
)

// TestVolatileValuesSurviveARestart: a view stamping rows with PROCTIME(),
// RAND() and UUID() is checkpointed; after a restart it resumes from the
// checkpoint and holds the same values — computed once, kept as data —
// rather than values its query computed again; rows inserted after the
// restart get values of their own.
func TestVolatileValuesSurviveARestart(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM s (k INT);
		INSERT INTO s VALUES (1), (2), (3);
		CREATE MATERIALIZED VIEW v AS SELECT k, PROCTIME() AS p, RAND() AS r, UUID() AS u FROM s;
		FLUSH;`)
	checkpointNow(t, e, "v")
	before := sorted(text(run(t, s, "SELECT * FROM v;")))
	time.Sleep(5 * time.Millisecond) // a replay would see another PROCTIME()
	e, s = restart(t, e, cfg)
	if got := sorted(text(run(t, s, "SELECT * FROM v;"))); got != before {
		t.Fatalf("after the restart v holds\n%s\nbefore it\n%s", got, before)
	}
	run(t, s, "INSERT INTO s VALUES (4); FLUSH;")
	after := sorted(text(run(t, s, "SELECT * FROM v;")))
	if !strings.HasPrefix(after, before) || strings.Count(after, "\n") != 4 {
		t.Fatalf("after a new row v holds\n%s", after)
	}
}

// TestTemporalFilterRetractsAsNowAdvances: a view over `ts > NOW() -
// INTERVAL '300' MILLISECOND` holds a row stamped now and, without any
// more input, drops it once the processing time passes its bound; a row
// already expired never enters, and one a day ahead stays.
func TestTemporalFilterRetractsAsNowAdvances(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE STREAM s (k INT, ts TIMESTAMP(3));
		CREATE MATERIALIZED VIEW recent AS SELECT k FROM s WHERE ts > NOW() - INTERVAL '300' MILLISECOND;
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c FROM s WHERE NOW() - INTERVAL '300' MILLISECOND <= ts;
		INSERT INTO s VALUES (1, NOW()), (2, NOW() - INTERVAL '1' HOUR), (3, NOW() + INTERVAL '1' DAY);
		FLUSH;`)
	if got := sorted(text(run(t, s, "SELECT * FROM recent;"))); got != "1\n3\n" {
		t.Fatalf("recent holds\n%s", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := sorted(text(run(t, s, "SELECT * FROM recent;")))
		if got == "3\n" && text(run(t, s, "SELECT * FROM n;")) == "1\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("row 1 never expired: recent holds\n%s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTemporalFilterDelaysUntilNow checks the mirror: a row stamped in the
// near future enters `ts < NOW()` when the processing time reaches it, and
// a retraction of a row still held cancels it (the row never appears).
func TestTemporalFilterDelaysUntilNow(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE TABLE s (k INT, ts TIMESTAMP(3), PRIMARY KEY (k));
		CREATE MATERIALIZED VIEW arrived AS SELECT k FROM s WHERE ts < NOW();
		INSERT INTO s VALUES (1, NOW() + INTERVAL '300' MILLISECOND), (2, NOW() - INTERVAL '1' HOUR),
			(3, NOW() + INTERVAL '1' DAY), (4, NOW() + INTERVAL '400' MILLISECOND);
		FLUSH;
		INSERT INTO s VALUES (4, NOW() + INTERVAL '1' DAY);
		FLUSH;`)
	if got := sorted(text(run(t, s, "SELECT * FROM arrived;"))); got != "2\n" {
		t.Fatalf("arrived holds\n%s, want only the row of an hour ago yet", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := sorted(text(run(t, s, "SELECT * FROM arrived;")))
		if got == "1\n2\n" {
			break
		}
		if time.Now().After(deadline) || strings.Contains(got, "4") {
			t.Fatalf("arrived holds\n%s, want row 1 to arrive and row 4 (moved to tomorrow) never", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // row 4's first time has passed: it must not come
	if got := sorted(text(run(t, s, "SELECT * FROM arrived;"))); got != "1\n2\n" {
		t.Fatalf("arrived holds\n%s later", got)
	}
}
