package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eddysql/eddy/storage"
)

// TestRescaleMovesKeyedState is TestRescaleMovesState for the other keyed
// operators that adopt their unmoved key groups (exec.GroupMover): a
// view over a Top-N, over a de-duplication (ROW_NUMBER() = 1) and over an
// OVER window aggregate moves 1 → 2 → 1 → 2 → 4 → 3 → 1 through
// Engine.Rescale while rows arrive (a batch inserted, not flushed, before
// every move). After every move the bytes read from the store
// (StateBytes) must be those of the key groups that changed instance —
// at least them, and at most 1.1× — and at the end the view must hold
// what the same query computes in a view that never moved (at
// parallelism 2).
func TestRescaleMovesKeyedState(t *testing.T) {
	for _, q := range []struct{ name, query string }{
		{"topn", `SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM s) WHERE rn <= 3`},
		{"dedup", `SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM s) WHERE rn = 1`},
		{"over", `SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w FROM s`},
	} {
		t.Run(q.name, func(t *testing.T) {
			e, s, _ := checkpointedEngine(t, 1)
			run(t, s, `CREATE STREAM s (k BIGINT, v BIGINT);
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
					// 2,000 partitions, a row of each every 2,000 rows.
					fmt.Fprintf(&sb, "(%d, %d)", (batch*rows+r)%2000, (batch*rows+r)*7919%100003)
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
