package engine

import (
	"context"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
	"github.com/eddysql/eddy/sql"
)

// TestSharedViewOutlivesItsDrop: a view that another reads in place of a
// sub-plan of its own keeps running, detached from the catalog, when it
// is dropped — checkpointing as before — and the last reader's drop
// stops it and deletes its checkpoints.
func TestSharedViewOutlivesItsDrop(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 2)
	defer e.Close()
	run(t, s, `CREATE STREAM bids (auction BIGINT, price BIGINT);
		CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction;
		CREATE MATERIALIZED VIEW busy AS SELECT auction FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t WHERE n > 1;
		CREATE MATERIALIZED VIEW hot AS SELECT MAX(n) AS top FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t;
		INSERT INTO bids VALUES (1, 10), (1, 20), (2, 5);
		FLUSH;`)
	v, _ := e.Catalog().Get("per_auction")
	for _, name := range []string{"busy", "hot"} {
		if !readsObject(query(e, name).plan, map[uint64]bool{v.ID: true}) {
			t.Fatalf("%s does not read per_auction:\n%s", name, physical.Format(query(e, name).plan))
		}
	}
	run(t, s, "DROP MATERIALIZED VIEW per_auction;")
	e.mu.Lock()
	d := e.detached[v.ID]
	e.mu.Unlock()
	if d == nil {
		t.Fatal("the dropped view's query stopped while views read it")
	}
	if state, err := d.job.State(); state != dataflow.JobRunning {
		t.Fatalf("the detached view's job: %v %v", state, err)
	}
	if _, err := d.job.CheckpointNext(context.Background()); err != nil {
		t.Fatalf("the detached view does not checkpoint: %v", err)
	}
	run(t, s, "INSERT INTO bids VALUES (2, 7), (3, 1); FLUSH;")
	if got := sorted(text(run(t, s, "SELECT * FROM busy;"))); got != "1\n2\n" {
		t.Errorf("busy after the drop:\n%s", got)
	}
	run(t, s, "DROP MATERIALIZED VIEW busy;")
	n := detachedViews(e)
	if n != 1 {
		t.Fatal("the dropped view stopped while hot still reads it")
	}
	if got := text(run(t, s, "SELECT * FROM hot;")); got != "2\n" {
		t.Errorf("hot after busy's drop: %s", got)
	}
	run(t, s, "DROP MATERIALIZED VIEW hot;")
	n = detachedViews(e)
	if n != 0 {
		t.Fatal("the dropped view runs on with no reader")
	}
	if state, _ := d.job.State(); state == dataflow.JobRunning {
		t.Error("the released view's job still runs")
	}
	st, err := e.db.State(stateJob(v.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if epoch, err := st.Recover(context.Background()); err != nil || epoch != 0 {
		t.Errorf("the released view's checkpoints are still there (epoch %d, %v)", epoch, err)
	}
}

// TestShareViewsNeedsSameRows: views whose rows depend on when they were
// computed (state TTL, load shedding) are never read in place of a
// sub-plan, and share_views = off plans without sharing.
func TestShareViewsNeedsSameRows(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM bids (auction BIGINT, price BIGINT);
		CREATE MATERIALIZED VIEW aged WITH (state_ttl = '1h') AS SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction;
		CREATE MATERIALIZED VIEW shed WITH (max_latency = '1s') AS SELECT auction, SUM(price) AS total FROM bids GROUP BY auction;`)
	for _, q := range []string{
		"SELECT MAX(n) AS m FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t",
		"SELECT MAX(total) AS m FROM (SELECT auction, SUM(price) AS total FROM bids GROUP BY auction) t",
	} {
		cq, err := s.eng.planContinuous(&catalog.Object{Name: "x", Kind: catalog.View}, mustParse(t, q+";").(*sql.Select).Query, nil, sql.Pos{Line: 1, Col: 1}, s.settings())
		if err != nil {
			t.Fatal(err)
		}
		if len(cq.reuses) > 0 {
			t.Errorf("%s reuses %v", q, cq.reuses)
		}
	}
	run(t, s, "CREATE MATERIALIZED VIEW plain AS SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction;")
	plan := func() []viewReuse {
		t.Helper()
		q := mustParse(t, "SELECT MAX(n) AS m FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t;").(*sql.Select).Query
		cq, err := s.eng.planContinuous(&catalog.Object{Name: "x", Kind: catalog.View}, q, nil, sql.Pos{Line: 1, Col: 1}, s.settings())
		if err != nil {
			t.Fatal(err)
		}
		return cq.reuses
	}
	if r := plan(); len(r) != 1 || r[0].view != "plain" {
		t.Errorf("with a plain view running: reuses %v", r)
	}
	run(t, s, "SET share_views = off;")
	if r := plan(); len(r) > 0 {
		t.Errorf("share_views = off: reuses %v", r)
	}
}

// TestRescaledReaderReleasesDroppedView: a reader rescaled after the view
// it read was dropped is planned again without it — from its inputs — and
// the dropped view's query stops, its checkpoints gone; the reader's rows
// stay right.
func TestRescaledReaderReleasesDroppedView(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 1)
	defer e.Close()
	run(t, s, `CREATE STREAM bids (auction BIGINT, price BIGINT);
		CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction;
		CREATE MATERIALIZED VIEW busy AS SELECT auction FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t WHERE n > 1;
		INSERT INTO bids VALUES (1, 10), (1, 20), (2, 5);
		FLUSH;
		DROP MATERIALIZED VIEW per_auction;`)
	n := detachedViews(e)
	if n != 1 {
		t.Fatalf("%d detached views, want 1", n)
	}
	run(t, s, "ALTER MATERIALIZED VIEW busy SET (parallelism = 2);")
	n = detachedViews(e)
	if n != 0 {
		t.Errorf("the dropped view runs on after its only reader was planned again without it")
	}
	run(t, s, "INSERT INTO bids VALUES (2, 7), (3, 1); FLUSH;")
	if got := sorted(text(run(t, s, "SELECT * FROM busy;"))); got != "1\n2\n" {
		t.Errorf("busy after its rescale:\n%s", got)
	}
}

// detachedViews returns how many dropped views run on for their readers.
func detachedViews(e *Engine) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.detached)
}

// TestShareViewsOffKeptAcrossRestart: a view created with share_views =
// off computes its own sub-plan again when the engine restarts, as it was
// planned, while one created with sharing reads the view again.
func TestShareViewsOffKeptAcrossRestart(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 1)
	run(t, s, `CREATE STREAM bids (auction BIGINT, price BIGINT);
		CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction;
		CREATE MATERIALIZED VIEW shared AS SELECT MAX(n) AS m FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t;
		SET share_views = off;
		CREATE MATERIALIZED VIEW own AS SELECT MAX(n) AS m FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction) t;
		INSERT INTO bids VALUES (1, 10), (1, 20), (2, 5);
		FLUSH;`)
	e, s = restart(t, e, cfg)
	defer e.Close()
	v, _ := e.Catalog().Get("per_auction")
	ids := map[uint64]bool{v.ID: true}
	if !readsObject(query(e, "shared").plan, ids) {
		t.Error("shared does not read per_auction after the restart")
	}
	if readsObject(query(e, "own").plan, ids) {
		t.Error("own, created with share_views = off, reads per_auction after the restart")
	}
	run(t, s, "INSERT INTO bids VALUES (2, 1), (2, 2); FLUSH;")
	for _, name := range []string{"shared", "own"} {
		if got := text(run(t, s, "SELECT m FROM "+name+";")); got != "3\n" {
			t.Errorf("%s after the restart: %s", name, got)
		}
	}
}
