package engine

import (
	"testing"
)

// TestSessionAndOverViewsResume: views over SESSION windows (running and
// EMIT ON WINDOW CLOSE) and over OVER aggregates are checkpointed and,
// restarted, resume from their checkpoints rather than replaying: rows
// after the checkpoint are read again from the recorded position, a
// session open at the checkpoint merges with a row after the restart
// (retracting the rows the view held), and a watermark after the restart
// closes it.
func TestSessionAndOverViewsResume(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	views := []string{"sess", "sess_closed", "running"}
	run(t, s, `CREATE STREAM c (usr VARCHAR, v BIGINT, ts BIGINT);
		CREATE STREAM w (usr VARCHAR, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND);
		INSERT INTO w VALUES ('a', 1, '2024-01-01 00:00:00'), ('a', 2, '2024-01-01 00:00:08'), ('b', 4, '2024-01-01 00:00:01');
		INSERT INTO c VALUES ('a', 1, 1), ('a', 2, 2), ('b', 4, 1);
		CREATE MATERIALIZED VIEW sess AS SELECT usr, window_start, COUNT(*) AS n, SUM(v) AS total
		  FROM SESSION(w, ts, INTERVAL '5' SECOND) GROUP BY usr, window_start, window_end;
		CREATE MATERIALIZED VIEW sess_closed AS SELECT usr, window_start, COUNT(*) AS n, SUM(v) AS total
		  FROM SESSION(w, ts, INTERVAL '5' SECOND) GROUP BY usr, window_start, window_end EMIT ON WINDOW CLOSE;
		CREATE MATERIALIZED VIEW running AS SELECT usr, ts, SUM(v) OVER (PARTITION BY usr ORDER BY ts) AS s FROM c;
		FLUSH;`)
	for _, v := range views {
		if err := query(e, v).job.Resumable(); err != nil {
			t.Fatalf("%s cannot resume: %v", v, err)
		}
		checkpointNow(t, e, v)
	}
	// After the checkpoints: a's [0, 5) and [8, 13) merge; the watermark
	// (12 s) closes b's [1, 6).
	run(t, s, `INSERT INTO w VALUES ('a', 16, '2024-01-01 00:00:04'), ('b', 32, '2024-01-01 00:00:22');
		INSERT INTO c VALUES ('a', 8, 0); FLUSH;`)
	want := map[string]string{
		"sess": "a | 2024-01-01 00:00:00.000 | 3 | 19\nb | 2024-01-01 00:00:01.000 | 1 | 4\n" +
			"b | 2024-01-01 00:00:22.000 | 1 | 32\n",
		"sess_closed": "b | 2024-01-01 00:00:01.000 | 1 | 4\n",
		"running":     "a | 0 | 8\na | 1 | 9\na | 2 | 11\nb | 1 | 4\n",
	}
	check := func(when string) {
		t.Helper()
		for _, v := range views {
			if got := sorted(text(run(t, s, "SELECT * FROM "+v+";"))); got != want[v] {
				t.Fatalf("%s %s holds\n%s\nwant\n%s", when, v, got, want[v])
			}
		}
	}
	check("before the restart")
	e, s = restart(t, e, cfg)
	res := run(t, s, "SELECT 1;")
	for _, v := range views {
		wantNotice(t, res, "materialized view "+v+" resumed from its checkpoint")
	}
	check("after the restart")
	// The watermark moves to 30 s: a's merged [0, 13) and b's [22, 27)
	// close.
	run(t, s, `INSERT INTO w VALUES ('a', 64, '2024-01-01 00:00:40'); INSERT INTO c VALUES ('b', 1, 0); FLUSH;`)
	want["sess"] += "a | 2024-01-01 00:00:40.000 | 1 | 64\n"
	want["sess"] = sorted(want["sess"])
	want["sess_closed"] = "a | 2024-01-01 00:00:00.000 | 3 | 19\nb | 2024-01-01 00:00:01.000 | 1 | 4\n" +
		"b | 2024-01-01 00:00:22.000 | 1 | 32\n"
	want["running"] = "a | 0 | 8\na | 1 | 9\na | 2 | 11\nb | 0 | 1\nb | 1 | 5\n"
	check("after new rows")
}
