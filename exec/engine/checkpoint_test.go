package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestViewResumesFromItsCheckpointAfterARestart: a checkpointed view,
// restarted, resumes from its checkpoint (a notice says which) rather than
// replaying its input, and holds every row exactly once — those the
// checkpoint covers and those inserted after it, which its source reads
// again from the recorded position — and goes on with new rows.
func TestViewResumesFromItsCheckpointAfterARestart(t *testing.T) {
	// Checkpoints are taken by hand here: one after the first rows, none
	// after the next.
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM s (k INT, v INT);
		INSERT INTO s VALUES (1, 10), (2, 20), (1, 5);
		CREATE MATERIALIZED VIEW v AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;
		FLUSH;`)
	q := query(e, "v")
	epoch := checkpointNow(t, e, "v")
	// SHOW CHECKPOINTS lists it, committed, with its timings, the bytes
	// it wrote and the size of the state the store holds after it.
	res := run(t, s, "SHOW CHECKPOINTS;")
	var names []string
	for _, c := range res.Columns {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "query epoch started duration_ms sync_ms deferred_ms alignment_ms bytes state_bytes status" {
		t.Errorf("SHOW CHECKPOINTS has columns %s", got)
	}
	var listed bool
	var written int64
	for _, row := range res.Rows {
		if row[0].S != "v" {
			continue
		}
		written += row[7].I
		if uint64(row[1].I) == epoch {
			listed = row[9].S == "committed" && row[3].F >= row[4].F && row[3].F >= row[5].F && row[4].F >= 0 &&
				row[5].F >= 0 && row[6].F >= 0 && row[8].I >= row[7].I && row[8].I == stateBytes(t, q)
		}
	}
	if !listed || written == 0 {
		t.Errorf("SHOW CHECKPOINTS does not list checkpoint %d of v as committed:\n%s", epoch, text(res))
	}
	plan := text(run(t, s, "EXPLAIN ANALYZE v;"))
	if want := fmt.Sprintf(`(?m)^checkpoints: last epoch %d \([0-9.]+ ms, sync [0-9.]+ ms, deferred [0-9.]+ ms, alignment [0-9.]+ ms, [0-9.]+ [KMG]?i?B written, [0-9.]+ [KMG]?i?B state\), 1 taken, 0 failed$`, epoch); !regexp.MustCompile(want).MatchString(plan) {
		t.Errorf("EXPLAIN ANALYZE v does not match %s:\n%s", want, plan)
	}
	// Rows after the checkpoint: the resumed source reads them again.
	run(t, s, `INSERT INTO s VALUES (2, 1), (3, 7); FLUSH;`)
	want := "1 | 2 | 15\n2 | 2 | 21\n3 | 1 | 7\n"
	if got := sorted(text(run(t, s, "SELECT * FROM v;"))); got != want {
		t.Fatalf("before the restart v holds\n%s", got)
	}
	e, s = crash(t, e, cfg)
	res = run(t, s, "SELECT * FROM v;")
	wantNotice(t, res, "materialized view v resumed from its checkpoint", "B of state)")
	if got := sorted(text(res)); got != want {
		t.Fatalf("after the restart v holds\n%s\nwant\n%s", got, want)
	}
	run(t, s, `INSERT INTO s VALUES (3, 1), (4, 4); FLUSH;`)
	if got, want := sorted(text(run(t, s, "SELECT * FROM v;"))), "1 | 2 | 15\n2 | 2 | 21\n3 | 2 | 8\n4 | 1 | 4\n"; got != want {
		t.Fatalf("after new rows v holds\n%s\nwant\n%s", got, want)
	}
	// Dropping the view drops its checkpoints.
	e.mu.Lock()
	id := e.queries["v"].obj.ID
	e.mu.Unlock()
	run(t, s, "DROP MATERIALIZED VIEW v;")
	store, err := e.db.State(stateJob(id))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if epoch, err := store.Recover(context.Background()); err != nil || epoch != 0 {
		t.Fatalf("after DROP the view's store is at epoch %d (%v)", epoch, err)
	}
}

// TestViewThatCannotResumeReplays: a view that cannot resume from a
// checkpoint — a view over a view, whose source, a subscription to the
// view's changes, has no position to resume from — takes no checkpoints
// and is rebuilt from its inputs after a restart, as before. (A view over
// a derived stream, the example here before, now resumes: see
// TestDerivedStreamResumesExactlyOnce.)
func TestViewThatCannotResumeReplays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := Config{DataDir: dir, Parallelism: 1, CheckpointInterval: time.Millisecond}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM a (k INT, x INT);
		CREATE MATERIALIZED VIEW pos AS SELECT k, x FROM a WHERE x > 0;
		CREATE MATERIALIZED VIEW j AS SELECT k, SUM(x) AS s FROM pos GROUP BY k;
		INSERT INTO a VALUES (1, 1), (2, 2), (1, 3), (2, -1);
		FLUSH;`)
	e.mu.Lock()
	j := e.queries["j"]
	e.mu.Unlock()
	if j.job.Resumable() == nil {
		t.Fatal("a view over a view can resume")
	}
	time.Sleep(20 * time.Millisecond)
	if n := len(j.job.Checkpoints()); n != 0 {
		t.Fatalf("%d checkpoints of a view that cannot resume", n)
	}
	e, s = restart(t, e, cfg)
	if got, want := sorted(text(run(t, s, "SELECT * FROM j;"))), "1 | 4\n2 | 2\n"; got != want {
		t.Fatalf("after the restart j holds\n%s\nwant\n%s", got, want)
	}
}

// TestSetCheckpointInterval: SET checkpoint_interval sets how often the
// views a session creates are checkpointed, '0' none, over the engine's
// interval; a value that is not a duration is refused with its position.
func TestSetCheckpointInterval(t *testing.T) {
	e := openEngine(t, Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1})
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM s (k INT); INSERT INTO s VALUES (1);
		SET checkpoint_interval = '5ms';
		CREATE MATERIALIZED VIEW a AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		SET checkpoint_interval = '0';
		CREATE MATERIALIZED VIEW b AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		FLUSH;`)
	waitCheckpoint(t, e, "a")
	e.mu.Lock()
	b := e.queries["b"]
	e.mu.Unlock()
	if b.state != nil {
		t.Errorf("view b, created with checkpoint_interval '0', is checkpointed")
	}
	_, err := execOne(t, s, "SET checkpoint_interval = 'often';")
	if err == nil || !strings.Contains(err.Error(), "checkpoint_interval must be a duration such as '10s', or '0' for none") || !strings.Contains(err.Error(), "1:27") {
		t.Errorf("got %v", err)
	}
}

// TestQueryKeepsItsSettings: a view created under SET parallelism and SET
// checkpoint_interval keeps them across a restart of an engine whose
// defaults differ: its plan is the same, so it resumes from its
// checkpoint rather than being rebuilt, and its checkpoints stay off.
func TestQueryKeepsItsSettings(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM s (k INT, v INT); INSERT INTO s VALUES (1, 1), (2, 2);
		SET parallelism = 1;
		CREATE MATERIALIZED VIEW one AS SELECT k, SUM(v) AS total FROM s GROUP BY k;
		SET checkpoint_interval = '0';
		CREATE MATERIALIZED VIEW never AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		FLUSH;`)
	e, s = restart(t, e, cfg)
	res := run(t, s, "SELECT * FROM one;")
	wantNotice(t, res, "materialized view one resumed")
	e.mu.Lock()
	oneP, neverState := e.queries["one"].job.Parallelism(), e.queries["never"].state
	e.mu.Unlock()
	if oneP != 1 || neverState != nil {
		t.Errorf("after the restart one runs at parallelism %d, never is checkpointed: %v", oneP, neverState != nil)
	}
}
