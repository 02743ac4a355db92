package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/storage"
)

// TestRescaleMovesKeyedState is TestRescaleMovesState for the other keyed
// operators that adopt their unmoved key groups (exec.GroupMover): a
// view over a Top-N, over a de-duplication (ROW_NUMBER() = 1), over an
// OVER window aggregate and over SESSION windows moves 1 → 2 → 1 → 2 →
// 4 → 3 → 1 through Engine.Rescale while rows arrive (a batch inserted,
// not flushed, before every move). After every move the bytes read from
// the store (StateBytes) must be those of the key groups that changed
// instance — at least them, and at most 1.1× — and at the end the view
// must hold what the same query computes in a view that never moved (at
// parallelism 2).
func TestRescaleMovesKeyedState(t *testing.T) {
	// 2,000 partitions, a row of each every 2,000 rows.
	keyed := func(i int) string { return fmt.Sprintf("(%d, %d)", i%2000, i*7919%100003) }
	for _, q := range []struct {
		name, query string
		stream      string           // the columns of s, if not (k BIGINT, v BIGINT)
		row         func(int) string // row i of s, if not keyed
	}{
		{name: "topn", query: `SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM s) WHERE rn <= 3`},
		{name: "dedup", query: `SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM s) WHERE rn = 1`},
		{name: "over", query: `SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w FROM s`},
		// Row i at i ms: each key's rows 2 s apart extend its session
		// (gap 3 s), except that keys 1,500–1,999 lose their rows to
		// keys 0–499 for 4 s out of 8, so that their sessions close
		// behind the watermark (1 s behind) and new ones open.
		{name: "session", query: `SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
			FROM SESSION(s, ts, INTERVAL '3' SECOND) GROUP BY k, window_start, window_end`,
			stream: "k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
			row: func(i int) string {
				k := i % 2000
				if k >= 1500 && i/4000%2 == 1 {
					k -= 1500
				}
				ts := time.UnixMilli(1704067200000 + int64(i)).UTC().Format("2006-01-02 15:04:05.000")
				return fmt.Sprintf("(%d, %d, '%s')", k, i*7919%100003, ts)
			}},
	} {
		t.Run(q.name, func(t *testing.T) {
			e, s, _ := checkpointedEngine(t, 1)
			stream, row := "k BIGINT, v BIGINT", keyed
			if q.stream != "" {
				stream, row = q.stream, q.row
			}
			run(t, s, `CREATE STREAM s (`+stream+`);
				SET parallelism = 2;
				CREATE MATERIALIZED VIEW fixed AS `+q.query+`;
				SET parallelism = 1;
				CREATE MATERIALIZED VIEW v AS `+q.query+`;`)
			batch := 0
			insert := func(rows int) {
				var sb strings.Builder
				sb.WriteString("INSERT INTO s VALUES ")
				for r := range rows {
					if r > 0 {
						sb.WriteString(", ")
					}
					sb.WriteString(row(batch*rows + r))
				}
				run(t, s, sb.String()+";")
				batch++
			}
			for range 8 {
				insert(1000)
			}
			run(t, s, "FLUSH;")
			ctx := context.Background()
			var total, moved, full int64
			for _, to := range []int{2, 1, 2, 4, 3, 1} {
				insert(500) // arrives while the query moves
				prev := query(e, "v").graph
				rep, err := e.Rescale(ctx, "v", to)
				if err != nil {
					t.Fatal(err)
				}
				movedBytes, movedGroups := movedState(t, query(e, "v"), prev)
				ratio := float64(rep.StateBytes) / float64(movedBytes)
				t.Logf("%d → %d: paused %s; read %d bytes from the store; the %d key groups that changed instance hold %d (%.3f×); a full restore of the operator reads %d",
					rep.From, rep.To, rep.Pause, rep.StateBytes, movedGroups, movedBytes, ratio, heldState(t, query(e, "v")))
				if movedBytes <= 0 || rep.StateBytes < movedBytes || ratio > 1.1 || rep.MovedGroups != movedGroups || rep.MovedBytes != rep.StateBytes {
					t.Errorf("%d → %d: read %d bytes (%d in groups that moved, %d groups), want %d–%.0f in %d groups",
						rep.From, rep.To, rep.StateBytes, rep.MovedBytes, rep.MovedGroups, movedBytes, 1.1*float64(movedBytes), movedGroups)
				}
				total, moved, full = total+rep.StateBytes, moved+movedBytes, full+heldState(t, query(e, "v"))
			}
			insert(500)
			run(t, s, "FLUSH;")
			if got, want := viewRows(t, s, "v"), viewRows(t, s, "fixed"); got != want {
				t.Fatalf("after the moves v holds\n%s\nwant (as a view that never moved)\n%s", got, want)
			}
			t.Logf("6 moves read %d bytes; the groups that changed instance held %d; full restores of the operator would read %d", total, moved, full)
		})
	}
}

// heldState sums the bytes (keys with their group prefix, and values) of
// every entry of the keyed operator of q (the first operator of the stage
// after the source's, in these queries): what a move that restores each
// of its instances in full reads.
func heldState(t *testing.T, q *runningQuery) int64 {
	t.Helper()
	tbl, err := q.state.store.Table(q.graph.Stages[1].StateTable(1, 0), storage.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var bytes int64
	if err := tbl.ScanRange(nil, nil, func(k, v []byte) error {
		bytes += int64(len(k) + len(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return bytes
}

// TestRescaleMovesUpsertState is TestRescaleMovesKeyedState for a view
// over a table, whose Upsert (the latest row per primary key) adopts its
// unmoved key groups: the view of the rows of 4,000 keys, updated and
// deleted between the moves (a batch of upserts and a DELETE before
// every move, not flushed), moves 1 → 2 → 1 → 2 → 4 → 3 → 1. After every
// move the bytes read from the store must be those of the key groups
// that changed instance (at least them, at most 1.1×), and at the end the
// view must hold what the same query computes in a view that never moved
// (at parallelism 2).
func TestRescaleMovesUpsertState(t *testing.T) {
	const view = `SELECT k, v, name FROM t WHERE v % 5 <> 0`
	e, s, _ := checkpointedEngine(t, 1)
	run(t, s, `CREATE TABLE t (k BIGINT, v BIGINT, name VARCHAR, PRIMARY KEY (k));
		SET parallelism = 2;
		CREATE MATERIALIZED VIEW fixed AS `+view+`;
		SET parallelism = 1;
		CREATE MATERIALIZED VIEW v AS `+view+`;`)
	batch := 0
	upsert := func(rows int) {
		var sb strings.Builder
		sb.WriteString("INSERT INTO t VALUES ")
		for r := range rows {
			if r > 0 {
				sb.WriteString(", ")
			}
			// 4,000 keys, each upserted again every 4,000 rows.
			n := batch*rows + r
			fmt.Fprintf(&sb, "(%d, %d, 'name%d')", n*7%4000, n*7919%100003, n%13)
		}
		run(t, s, sb.String()+";")
		run(t, s, fmt.Sprintf("DELETE FROM t WHERE k %% 50 = %d;", batch%50))
		batch++
	}
	for range 8 {
		upsert(1000)
	}
	run(t, s, "FLUSH;")
	ctx := context.Background()
	var total, moved, full int64
	for _, to := range []int{2, 1, 2, 4, 3, 1} {
		upsert(500) // arrives while the query moves
		prev := query(e, "v").graph
		rep, err := e.Rescale(ctx, "v", to)
		if err != nil {
			t.Fatal(err)
		}
		movedBytes, movedGroups := movedState(t, query(e, "v"), prev)
		ratio := float64(rep.StateBytes) / float64(movedBytes)
		held := opState(t, query(e, "v"), "Upsert")
		t.Logf("%d → %d: paused %s; read %d bytes from the store; the %d key groups that changed instance hold %d (%.3f×); a full restore of the Upsert reads %d",
			rep.From, rep.To, rep.Pause, rep.StateBytes, movedGroups, movedBytes, ratio, held)
		if movedBytes <= 0 || rep.StateBytes < movedBytes || ratio > 1.1 || rep.MovedGroups != movedGroups || rep.MovedBytes != rep.StateBytes {
			t.Errorf("%d → %d: read %d bytes (%d in groups that moved, %d groups), want %d–%.0f in %d groups",
				rep.From, rep.To, rep.StateBytes, rep.MovedBytes, rep.MovedGroups, movedBytes, 1.1*float64(movedBytes), movedGroups)
		}
		total, moved, full = total+rep.StateBytes, moved+movedBytes, full+held
	}
	upsert(500)
	run(t, s, "FLUSH;")
	if got, want := viewRows(t, s, "v"), viewRows(t, s, "fixed"); got != want {
		t.Fatalf("after the moves v holds\n%s\nwant (as a view that never moved)\n%s", got, want)
	}
	t.Logf("6 moves read %d bytes; the groups that changed instance held %d; full restores of the Upsert would read %d", total, moved, full)
}

// opState sums the bytes (keys with their group prefix, and values) of
// every entry of the first operator of q whose description starts with
// name: what a move that restores each of its instances in full reads.
func opState(t *testing.T, q *runningQuery, name string) int64 {
	t.Helper()
	for si, st := range q.graph.Stages {
		for i, op := range st.Ops {
			if !strings.HasPrefix(op.Name, name) {
				continue
			}
			tbl, err := q.state.store.Table(st.StateTable(si, i), storage.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var bytes int64
			if err := tbl.ScanRange(nil, nil, func(k, v []byte) error {
				bytes += int64(len(k) + len(v))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return bytes
		}
	}
	t.Fatalf("no %s operator in the query", name)
	return 0
}
