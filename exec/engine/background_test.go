package engine

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/dataflow"
)

// waitRecovered waits until e has started n recoveries of failed queries
// and none is in progress.
func waitRecovered(t *testing.T, e *Engine, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for e.recovery.done.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d recoveries started, want %d", e.recovery.done.Load(), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
	e.recovery.wait()
}

// backgroundSetup creates, on a new checkpointed engine at parallelism 2,
// a view joining the rows of one stream with the counts of another, fills
// both and closes the engine (a last checkpoint: the positions it records
// are the ends of the streams' logs). It returns the engine's Config and
// the view's rows.
func backgroundSetup(t *testing.T) (Config, string) {
	t.Helper()
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM a (k BIGINT, v BIGINT);
		CREATE STREAM b (k BIGINT);
		CREATE MATERIALIZED VIEW j AS SELECT a.k, a.v, c.n FROM a JOIN (SELECT k, COUNT(*) AS n FROM b GROUP BY k) AS c ON a.k = c.k;
		INSERT INTO a VALUES (1, 10), (2, 20), (3, 30);
		INSERT INTO b VALUES (1), (1), (2), (3), (3), (3);
		FLUSH;`)
	want := "1 | 10 | 2\n2 | 20 | 1\n3 | 30 | 3\n"
	if got := sorted(text(run(t, s, "SELECT * FROM j;"))); got != want {
		t.Fatalf("j holds\n%s\nwant\n%s", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return cfg, want
}

// TestViewAnswersWhileItsStateRestores: a view resumed with nothing to
// catch up on answers from its restored rows while its join and
// aggregate still restore (held here until released); rows inserted
// meanwhile wait for the restore, and FLUSH with them.
func TestViewAnswersWhileItsStateRestores(t *testing.T) {
	cfg, want := backgroundSetup(t)
	release := dataflow.HoldRestores()
	defer release()
	e, s := reopen(t, cfg)
	if q := query(e, "j"); q == nil || !q.restoring() {
		t.Fatal("j does not restore in the background")
	}
	res := run(t, s, "SELECT * FROM j;")
	if got := sorted(text(res)); got != want {
		t.Errorf("j while restoring holds\n%s\nwant\n%s", got, want)
	}
	wantNotice(t, res, "materialized view j resumed from its checkpoint", "it answers from its rows while the rest of its state (", "in all) is read back")
	restoringLine := regexp.MustCompile(`(?m)^restoring: the view answers from the rows of checkpoint [0-9]+ while its operators read their state back \([0-9.]+ [KMG]?i?B of entries read; [0-9.]+ [KMG]?i?B stored\)$`)
	if plan := text(run(t, s, "EXPLAIN ANALYZE j;")); !restoringLine.MatchString(plan) {
		t.Errorf("EXPLAIN ANALYZE j while restoring does not say so:\n%s", plan)
	}
	run(t, s, "INSERT INTO a VALUES (1, 11); INSERT INTO b VALUES (2);")
	flushed := make(chan error, 1)
	go func() {
		_, err := s.Execute(t.Context(), mustParse(t, "FLUSH;"))
		flushed <- err
	}()
	select {
	case err := <-flushed:
		t.Fatalf("FLUSH returned (%v) while j's operators had not restored", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if q := query(e, "j"); q.restoring() {
		t.Error("j still restores after FLUSH")
	}
	if plan := text(run(t, s, "EXPLAIN ANALYZE j;")); restoringLine.MatchString(plan) {
		t.Errorf("EXPLAIN ANALYZE j after the restore says it restores:\n%s", plan)
	}
	want = "1 | 10 | 2\n1 | 11 | 2\n2 | 20 | 2\n3 | 30 | 3\n"
	if got := sorted(text(run(t, s, "SELECT * FROM j;"))); got != want {
		t.Errorf("j after the restore holds\n%s\nwant\n%s", got, want)
	}
}

// TestCloseWhileRestoringKeepsTheCheckpoint: an engine closed while a
// view restores in the background takes no checkpoint of it (its rows
// have not changed since the one it restores); the next start resumes the
// same checkpoint, with the same rows, and goes on from there.
func TestCloseWhileRestoringKeepsTheCheckpoint(t *testing.T) {
	cfg, want := backgroundSetup(t)
	release := dataflow.HoldRestores()
	defer release()
	e, s := reopen(t, cfg)
	res := run(t, s, "SELECT * FROM j;")
	epoch := query(e, "j").state.epoch
	if got := sorted(text(res)); got != want {
		t.Fatalf("j while restoring holds\n%s\nwant\n%s", got, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	release()
	e, s = reopen(t, cfg)
	if got := query(e, "j").state.epoch; got != epoch {
		t.Errorf("after a close while restoring, j resumed checkpoint %d, want %d", got, epoch)
	}
	if got := sorted(text(run(t, s, "SELECT * FROM j;"))); got != want {
		t.Errorf("j after the restart holds\n%s\nwant\n%s", got, want)
	}
	run(t, s, "INSERT INTO b VALUES (2); FLUSH;")
	want = "1 | 10 | 2\n2 | 20 | 2\n3 | 30 | 3\n"
	if got := sorted(text(run(t, s, "SELECT * FROM j;"))); got != want {
		t.Errorf("j after new rows holds\n%s\nwant\n%s", got, want)
	}
}

// TestViewWithInputToCatchUpRestoresFirst: a view whose stream has rows
// after its checkpoint's position (a crash after they were inserted)
// restores all its state and catches up before the engine opens, as
// before; so does a view another view reads.
func TestViewWithInputToCatchUpRestoresFirst(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM a (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW g AS SELECT k, SUM(v) AS total FROM a GROUP BY k;
		CREATE MATERIALIZED VIEW h AS SELECT SUM(total) AS all_total FROM g;
		INSERT INTO a VALUES (1, 10), (2, 20);
		FLUSH;`)
	checkpointNow(t, e, "g")
	run(t, s, "INSERT INTO a VALUES (1, 5); FLUSH;")
	e, s = crash(t, e, cfg)
	if q := query(e, "g"); q.background || q.restoring() {
		t.Error("g, with rows to catch up on, restored in the background")
	}
	res := run(t, s, "SELECT * FROM g;")
	wantNotice(t, res, "materialized view g resumed from its checkpoint", "B of state)")
	if got, want := sorted(text(res)), "1 | 15\n2 | 20\n"; got != want {
		t.Errorf("g holds\n%s\nwant\n%s", got, want)
	}
	if got := text(run(t, s, "SELECT * FROM h;")); got != "35\n" {
		t.Errorf("h holds %s", got)
	}
	// Caught up and closed: both resume with nothing to catch up on; g
	// is read by h, so the engine waits for g's state all the same.
	_, s = restart(t, e, cfg)
	if got := text(run(t, s, "SELECT * FROM h;")); got != "35\n" {
		t.Errorf("h after a clean restart holds %s", got)
	}
	if strings.Contains(strings.Join(run(t, s, "SELECT * FROM g;").Notices, "\n"), "answers from its rows") {
		t.Error("g said it answers while restoring")
	}
}
