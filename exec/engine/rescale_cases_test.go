package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/storage"
)

// More rescale tests: what a move reads, sinks and derived streams,
// finished queries and refusals (rescale_test.go has the moves under
// load and the restarts).

// TestRescaleMovesState measures what a rescale moves: a view's query
// holding 20,000 groups goes 1 → 2 → 1 → 2 → 4 → 3 → 1 through
// Engine.Rescale, the API an autoscaler calls. Each new instance of the
// hash aggregate takes over the old instance it is matched with
// (exec.MatchInstances) and reads from the checkpoint only the key
// groups it gains; the view's rows are kept in place. The bytes read
// (StateBytes) are compared with the serialized state of the key groups
// that changed instance, summed from the store's entries by the test:
// issue 12 asks for at most 1.1×, and reading no less is what makes the
// state complete.
func TestRescaleMovesState(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 1)
	run(t, s, `CREATE STREAM s (k BIGINT, v BIGINT);
		CREATE MATERIALIZED VIEW v AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;`)
	for b := range 20 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO s VALUES ")
		for r := range 1000 {
			if r > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, %d)", b*1000+r, r)
		}
		run(t, s, sb.String()+";")
	}
	run(t, s, "FLUSH;")
	want := viewRows(t, s, "v")
	ctx := context.Background()
	for _, to := range []int{2, 1, 2, 4, 3, 1} {
		prev := query(e, "v").graph
		rep, err := e.Rescale(ctx, "v", to)
		if err != nil {
			t.Fatal(err)
		}
		movedBytes, movedGroups := movedState(t, query(e, "v"), prev)
		ratio := float64(rep.StateBytes) / float64(movedBytes)
		t.Logf("%d → %d: paused %s; read %d bytes from the store; the %d key groups that changed instance hold %d (%.3f×)",
			rep.From, rep.To, rep.Pause, rep.StateBytes, movedGroups, movedBytes, ratio)
		if movedBytes <= 0 || rep.StateBytes < movedBytes || ratio > 1.1 || rep.MovedGroups != movedGroups || rep.MovedBytes != rep.StateBytes {
			t.Errorf("%d → %d: read %d bytes (%d in groups that moved, %d groups), want %d–%.0f in %d groups",
				rep.From, rep.To, rep.StateBytes, rep.MovedBytes, rep.MovedGroups, movedBytes, 1.1*float64(movedBytes), movedGroups)
		}
		if got := viewRows(t, s, "v"); got != want {
			t.Fatalf("after moving to %d the view changed", to)
		}
	}
}

// movedState sums, from the store of q (a query just moved from the graph
// prev), the bytes (keys with their group prefix, and values) of the
// entries in the key groups that changed instance, and counts those
// groups, over the stateful operators of the stages whose parallelism
// changed: a group changed instance when the old instance matched with
// its new owner did not own it.
func movedState(t *testing.T, q *runningQuery, prev dataflow.GraphSpec) (int64, int) {
	t.Helper()
	was := map[string]int{}
	for si, st := range prev.Stages {
		for i := range st.Ops {
			was[st.StateTable(si, i)] = st.Parallelism
		}
	}
	var bytes int64
	groups := 0
	for si, st := range q.graph.Stages {
		for i := range st.Ops {
			name := st.StateTable(si, i)
			from, ok := was[name]
			if !ok || from == st.Parallelism {
				continue
			}
			tbl, err := q.state.store.Table(name, storage.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			empty := true
			if err := tbl.ScanRange(nil, nil, func(k, v []byte) error {
				empty = false
				return errStopScan
			}); err != nil && err != errStopScan {
				t.Fatal(err)
			}
			if empty {
				continue // a stateless operator's (a projection's in a join's stage)
			}
			match := exec.MatchInstances(from, st.Parallelism)
			for g := range exec.NumKeyGroups {
				if match[exec.InstanceForKeyGroup(g, st.Parallelism)] == exec.InstanceForKeyGroup(g, from) {
					continue
				}
				groups++
				lo, hi := binary.BigEndian.AppendUint16(nil, uint16(g)), binary.BigEndian.AppendUint16(nil, uint16(g+1))
				if err := tbl.ScanRange(lo, hi, func(k, v []byte) error {
					bytes += int64(len(k) + len(v))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return bytes, groups
}

// errStopScan ends a scan early.
var errStopScan = errors.New("stop")

// TestRescaleSinkAndDerivedStream: ALTER SINK moves a file sink's query
// and ALTER STREAM a derived stream's, while rows arrive between the
// moves; the file and the stream's log hold every row exactly once.
func TestRescaleSinkAndDerivedStream(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 1, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	t.Cleanup(func() { e.Close() })
	s := e.NewSession(SessionOptions{})
	run(t, s, rescaleSchema+`
		CREATE SINK k AS SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, ts, INTERVAL '10' SECOND)
			GROUP BY auction, window_start WITH (connector = 'file', path = 'out.csv');
		CREATE STREAM d AS SELECT auction, window_start, SUM(price) AS total FROM TUMBLE(bid, ts, INTERVAL '10' SECOND)
			GROUP BY auction, window_start;
		CREATE MATERIALIZED VIEW dv AS SELECT * FROM d;`)
	for i, p := range []int{2, 1, 3} {
		for b := i * 10; b < i*10+10; b++ {
			insertBatch(t, s, b)
		}
		run(t, s, fmt.Sprintf("ALTER SINK k SET (parallelism = %d); ALTER STREAM d SET (parallelism = %d);", p, p))
	}
	for b := 30; b < 40; b++ {
		insertBatch(t, s, b)
	}
	// The last windows close at the end of time.
	run(t, s, `INSERT INTO bid VALUES (0, 0, '2030-01-01 00:00:00'); FLUSH;
		CREATE MATERIALIZED VIEW want_k AS SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, ts, INTERVAL '10' SECOND)
			GROUP BY auction, window_start;
		CREATE MATERIALIZED VIEW want_d AS SELECT auction, window_start, SUM(price) AS total FROM TUMBLE(bid, ts, INTERVAL '10' SECOND)
			GROUP BY auction, window_start;
		FLUSH;`)
	// The derived stream appends each window once, when it closes: every
	// window but the last one's.
	var wantD []string
	for _, l := range strings.Split(viewRows(t, s, "want_d"), "\n") {
		if !strings.HasPrefix(l, "0 | 2030-01-01 00:00:00.000") {
			wantD = append(wantD, l)
		}
	}
	if got := viewRows(t, s, "dv"); got != strings.Join(wantD, "\n") {
		t.Errorf("the derived stream holds\n%s\nwant\n%s", got, strings.Join(wantD, "\n"))
	}
	// The file holds the sink's changelog, which integrates to the
	// windows' counts.
	log := &changelog{counts: map[string]int{}}
	for _, line := range strings.Split(strings.TrimSuffix(readOut(t, filepath.Join(dir, "out.csv")), "\n"), "\n") {
		op, row, _ := strings.Cut(line, ",")
		log.apply(op, strings.ReplaceAll(row, ",", " | "))
	}
	if got, want := log.rows(), viewRows(t, s, "want_k"); got != want || len(log.bad) > 0 {
		t.Errorf("the sink's file integrates to\n%s\nwant\n%s\n(retractions of rows it did not hold: %q)", got, want, log.bad)
	}
}

// TestRescaleErrors: ALTER ... SET (parallelism = N) refuses, with the
// position of what is wrong, an object that does not exist, is of
// another kind or runs no query, a bad value or option, and a query that
// cannot move: a sink reading a view (not checkpointed, and a rebuild
// would write its output again), a continuous INSERT ... SELECT, and one
// whose plan at the new parallelism keeps its state otherwise (a source
// read in splits). A refused query runs on as it was; asking for the
// parallelism it has moves nothing.
func TestRescaleErrors(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 1)
	run(t, s, rescaleSchema+`
		CREATE TABLE person (id BIGINT, name VARCHAR, PRIMARY KEY (id));
		CREATE MATERIALIZED VIEW v AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;
		CREATE SINK kv FROM v WITH (connector = 'blackhole');
		CREATE STREAM copy (auction BIGINT, price BIGINT);
		INSERT INTO copy SELECT auction, price FROM bid;
		CREATE STREAM nbid WITH (connector = 'nexmark', table = 'bid', rate = '10');
		SET parallelism = 2;
		CREATE MATERIALIZED VIEW nx AS SELECT auction, COUNT(*) AS n FROM nbid GROUP BY auction;`)
	for _, c := range []struct{ stmt, want string }{
		{"ALTER MATERIALIZED VIEW nope SET (parallelism = 2)", "unknown materialized view 'nope' at 1:25"},
		{"ALTER SINK v SET (parallelism = 2)", "'v' is a materialized view, not a sink at 1:12"},
		{"ALTER STREAM bid SET (parallelism = 2)", "stream 'bid' runs no query to alter: only a derived stream (CREATE STREAM ... AS SELECT) does at 1:14"},
		{"ALTER MATERIALIZED VIEW v SET (parallelism = 0)", "parallelism must be an integer from 1 to 256, got '0' at 1:46"},
		{"ALTER MATERIALIZED VIEW v SET (parallelism = 257)", "parallelism must be an integer from 1 to 256, got '257' at 1:46"},
		{"ALTER MATERIALIZED VIEW v SET (parallelism = 'many')", "parallelism must be an integer from 1 to 256, got 'many' at 1:46"},
		{"ALTER MATERIALIZED VIEW v SET (state_ttl = '1h')", "unknown option 'state_ttl' of ALTER MATERIALIZED VIEW ... SET: it sets parallelism at 1:32"},
		{"ALTER SINK kv SET (parallelism = 2)",
			"not supported yet: rescaling sink kv: it reads a materialized view, whose changes have no position to resume from at 1:34"},
		{"ALTER SINK insert_into_copy_1 SET (parallelism = 2)",
			"not supported yet: rescaling sink 'insert_into_copy_1', a continuous INSERT ... SELECT: it runs as one instance, so that a replay appends its rows in the same order at 1:50"},
		{"ALTER MATERIALIZED VIEW nx SET (parallelism = 3)",
			"not supported yet: rescaling materialized view nx to parallelism 3: its source (Source nbid kind=nexmark columns=[auction]) is read in parallel splits, one per instance, and a split's position does not carry over to another parallelism at 1:47"},
	} {
		_, err := execOne(t, s, c.stmt)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.stmt, err, c.want)
		}
	}
	for _, name := range []string{"v", "kv", "nx", "insert_into_copy_1"} {
		if st := e.status(name); st.state != dataflow.JobRunning {
			t.Errorf("%s is %s after a refused ALTER", name, st)
		}
	}
	res := run(t, s, "ALTER MATERIALIZED VIEW v SET (parallelism = 1);")
	wantNotice(t, res, "materialized view v already runs at parallelism 1")
	if _, err := e.Rescale(context.Background(), "v", 300); err == nil || err.Error() != "parallelism must be an integer from 1 to 256, got 300" {
		t.Errorf("Rescale to 300: %v", err)
	}
}

// TestRescaleFinishedQuery: the query of a view whose input ended runs
// no more; ALTER stores the new parallelism, which it has when it starts
// again after a restart. Its input, a file, is read in one split per
// instance, and a split's position does not carry over to another
// parallelism: the view is rebuilt from the file, and says so.
func TestRescaleFinishedQuery(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte("k,v\n1,10\n2,20\n1,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 1, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM f (k BIGINT, v BIGINT) WITH (connector = 'file', path = 'in.csv', header = 'true');
		CREATE MATERIALIZED VIEW fv AS SELECT k, SUM(v) AS total FROM f GROUP BY k; FLUSH;`)
	if err := query(e, "fv").job.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "ALTER MATERIALIZED VIEW fv SET (parallelism = 2);")
	wantNotice(t, res, "materialized view fv has finished: it runs at parallelism 2 when it starts again")
	e, s = restart(t, e, cfg)
	if got := query(e, "fv").job.Parallelism(); got != 2 {
		t.Fatalf("after the restart fv runs at parallelism %d, want 2", got)
	}
	res = run(t, s, "FLUSH;")
	wantNotice(t, res, "materialized view fv is rebuilt from its inputs: its plan changed since its last checkpoint")
	if got := viewRows(t, s, "fv"); got != "1 | 15\n2 | 20" {
		t.Fatalf("after the restart fv holds\n%s", got)
	}
}

// TestRescaleJoinMovesState measures what a rescale of a regular join
// moves: a view over a LEFT JOIN of two streams goes 1 → 2 → 1 → 2 → 4 →
// 3 → 1 through Engine.Rescale while rows arrive on both sides between
// the moves. Each new instance of the hash join takes over the old
// instance it is matched with and reads only the key groups it gains
// (join.HashJoin.AdoptGroups): the bytes read must be those groups'
// state (at most 1.1×), and the view must end as the same query's at a
// fixed parallelism of 2.
func TestRescaleJoinMovesState(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 1)
	const q = `SELECT l.k, l.v, r.w FROM l LEFT JOIN r ON l.k = r.k`
	run(t, s, `CREATE STREAM l (k BIGINT, v BIGINT); CREATE STREAM r (k BIGINT, w BIGINT);
		SET parallelism = 2;
		CREATE MATERIALIZED VIEW fixed AS `+q+`;
		SET parallelism = 1;
		CREATE MATERIALIZED VIEW v AS `+q+`;`)
	// insert adds, for batch b, 500 left rows of keys b*250 .. b*250+249
	// (two each) and right rows for every other key, some matching left
	// rows of earlier batches.
	insert := func(b int) {
		t.Helper()
		var ls, rs strings.Builder
		for r := range 500 {
			if r > 0 {
				ls.WriteString(", ")
			}
			fmt.Fprintf(&ls, "(%d, %d)", b*250+r/2, r)
		}
		for r := range 250 {
			if r > 0 {
				rs.WriteString(", ")
			}
			fmt.Fprintf(&rs, "(%d, %d)", (b*250+r*2)%(b*250+250), r)
		}
		run(t, s, "INSERT INTO l VALUES "+ls.String()+"; INSERT INTO r VALUES "+rs.String()+";")
	}
	b := 0
	for ; b < 20; b++ {
		insert(b)
	}
	run(t, s, "FLUSH;")
	ctx := context.Background()
	for _, to := range []int{2, 1, 2, 4, 3, 1} {
		prev := query(e, "v").graph
		rep, err := e.Rescale(ctx, "v", to)
		if err != nil {
			t.Fatal(err)
		}
		movedBytes, movedGroups := movedState(t, query(e, "v"), prev)
		ratio := float64(rep.StateBytes) / float64(movedBytes)
		t.Logf("%d → %d: paused %s; read %d bytes from the store; the %d key groups that changed instance hold %d (%.3f×)",
			rep.From, rep.To, rep.Pause, rep.StateBytes, movedGroups, movedBytes, ratio)
		if movedBytes <= 0 || rep.StateBytes < movedBytes || ratio > 1.1 || rep.MovedGroups != movedGroups || rep.MovedBytes != rep.StateBytes {
			t.Errorf("%d → %d: read %d bytes (%d in groups that moved, %d groups), want %d–%.0f in %d groups",
				rep.From, rep.To, rep.StateBytes, rep.MovedBytes, rep.MovedGroups, movedBytes, 1.1*float64(movedBytes), movedGroups)
		}
		for range 3 {
			insert(b)
			b++
		}
	}
	run(t, s, "FLUSH;")
	want := viewRows(t, s, "fixed")
	if got := viewRows(t, s, "v"); got != want {
		t.Fatalf("after the moves v holds %d lines, the view that never moved %d", strings.Count(got, "\n")+1, strings.Count(want, "\n")+1)
	}
}
