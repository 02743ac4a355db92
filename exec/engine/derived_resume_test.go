package engine

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/storage/badger"
)

// logRecords returns stream name's log entries, each as its sequence
// number and rows.
func logRecords(t *testing.T, e *Engine, name string) []string {
	t.Helper()
	obj, ok := e.cat.Get(name)
	if !ok {
		t.Fatalf("no stream %s", name)
	}
	var out []string
	_, err := e.db.Log().Read(context.Background(), obj.ID, 0, math.MaxUint64, obj.Schema(), memory.DefaultAllocator,
		func(seq uint64, b arrow.RecordBatch) error {
			out = append(out, fmt.Sprintf("%d: %v", seq, b))
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// insertARows inserts rows k = i%5, x = i-2 for i in [from, to) into a.
func insertARows(t *testing.T, s *Session, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		run(t, s, fmt.Sprintf("INSERT INTO a VALUES (%d, %d), (%d, %d);", i%5, i-2, (i+1)%5, i))
	}
}

// derivedTotals is what SELECT k, SUM(y), COUNT(*) over d (y = x * 10
// for x > 0) gives after insertARows(0, n).
func derivedTotals(n int) string {
	sums, counts := map[int]int{}, map[int]int{}
	for i := range n {
		for _, r := range [][2]int{{i % 5, i - 2}, {(i + 1) % 5, i}} {
			if r[1] > 0 {
				sums[r[0]] += r[1] * 10
				counts[r[0]]++
			}
		}
	}
	var lines []string
	for k, s := range sums {
		lines = append(lines, fmt.Sprintf("%d | %d | %d", k, s, counts[k]))
	}
	return sorted(strings.Join(lines, "\n"))
}

// derivedChain opens a checkpointedEngine at parallelism p with a stream
// a, a derived stream d over it and a view j over d, inserts
// insertARows(0, n) into a, flushes, and checkpoints every query, as
// their interval would.
func derivedChain(t *testing.T, p, n int) (*Engine, *Session, Config) {
	t.Helper()
	e, s, cfg := checkpointedEngine(t, p)
	run(t, s, `CREATE STREAM a (k INT, x INT);
		CREATE STREAM d AS SELECT k, x * 10 AS y FROM a WHERE x > 0;
		CREATE MATERIALIZED VIEW j AS SELECT k, SUM(y) AS s, COUNT(*) AS n FROM d GROUP BY k;`)
	insertARows(t, s, 0, n)
	run(t, s, "FLUSH;")
	checkpointAll(t, e)
	return e, s, cfg
}

// insertAndCheck inserts insertARows(from, to) into a, flushes, and checks
// that the rows of j that selectJ selects are derivedTotals(to).
func insertAndCheck(t *testing.T, s *Session, from, to int, selectJ, when string) {
	t.Helper()
	insertARows(t, s, from, to)
	run(t, s, "FLUSH;")
	if got, want := sorted(text(run(t, s, selectJ))), derivedTotals(to); got != want {
		t.Fatalf("%s j holds\n%s\nwant\n%s", when, got, want)
	}
}

// wantAppended checks that selectOut, the count and sum of y over the rows
// appended from a, gives what a's rows with x > 0 give.
func wantAppended(t *testing.T, s *Session, selectOut string) {
	t.Helper()
	if got, want := text(run(t, s, selectOut)), text(run(t, s, "SELECT COUNT(*), SUM(x * 10) FROM a WHERE x > 0;")); got != want {
		t.Fatalf("%s gives %s, want %s", selectOut, got, want)
	}
}

// TestDerivedStreamResumesExactlyOnce: a checkpointed derived stream's
// rows reach its log when a checkpoint commits (FLUSH takes one); after a
// crash its query and the view over it resume from their checkpoints, the
// log keeps its records (the same sequence numbers and rows) and gains
// each later row once, and the view holds what an uninterrupted run
// holds; a clean restart resumes them too.
func TestDerivedStreamResumesExactlyOnce(t *testing.T) {
	e, s, cfg := derivedChain(t, 2, 20)
	if dState, jState := query(e, "d").state, query(e, "j").state; dState == nil || jState == nil {
		t.Fatalf("d checkpointed: %v, the view over it checkpointed: %v", dState != nil, jState != nil)
	}
	before := logRecords(t, e, "d")
	insertARows(t, s, 20, 30) // not checkpointed: computed again after the crash
	if got := logRecords(t, e, "d"); !slices.Equal(got, before) {
		t.Fatalf("rows reached d's log before their checkpoint committed:\n%q\nwant\n%q", got, before)
	}
	e, s = crash(t, e, cfg)
	if got := logRecords(t, e, "d"); len(got) < len(before) || !slices.Equal(got[:len(before)], before) {
		t.Fatalf("the crash rewrote d's log:\n%q\nbefore it:\n%q", got, before)
	}
	res := run(t, s, "SELECT 1;")
	wantNotice(t, res, "stream d resumed")
	wantNotice(t, res, "materialized view j resumed")
	insertAndCheck(t, s, 30, 40, "SELECT * FROM j;", "after the crash")
	wantAppended(t, s, "SELECT COUNT(*), SUM(y) FROM d;")
	before = logRecords(t, e, "d")
	e, s = restart(t, e, cfg)
	if got := logRecords(t, e, "d"); !slices.Equal(got, before) {
		t.Fatalf("a clean restart changed d's log:\n%q\nbefore it:\n%q", got, before)
	}
	insertAndCheck(t, s, 40, 45, "SELECT * FROM j;", "after the restart")
}

// TestContinuousInsertResumesExactlyOnce: a checkpointed continuous
// insert resumes from its checkpoint after a crash and appends each row
// once, beside the rows INSERT adds to the same stream; SHOW SINKS says
// exactly-once.
func TestContinuousInsertResumesExactlyOnce(t *testing.T) {
	e, s, cfg := checkpointedEngine(t, 2)
	run(t, s, `CREATE STREAM a (k INT, x INT);
		CREATE STREAM b (k INT, y INT);
		INSERT INTO b SELECT k, x * 10 FROM a WHERE x > 0;
		CREATE MATERIALIZED VIEW j AS SELECT k, SUM(y) AS s, COUNT(*) AS n FROM b GROUP BY k;`)
	if got := text(run(t, s, "SHOW SINKS;")); !strings.Contains(got, "exactly-once") {
		t.Errorf("SHOW SINKS says\n%s", got)
	}
	insertARows(t, s, 0, 20)
	run(t, s, "FLUSH; INSERT INTO b VALUES (7, 1);")
	checkpointAll(t, e)
	e.mu.Lock()
	var insert *runningQuery
	for _, q := range e.queries {
		if _, ok := e.insertTarget(q.obj); ok {
			insert = q
		}
	}
	e.mu.Unlock()
	if insert == nil || insert.state == nil {
		t.Fatal("the continuous insert is not checkpointed")
	}
	insertARows(t, s, 20, 30)
	e, s = crash(t, e, cfg)
	insertAndCheck(t, s, 30, 40, "SELECT * FROM j WHERE k <> 7;", "after the crash")
	wantAppended(t, s, "SELECT COUNT(*), SUM(y) FROM b WHERE k <> 7;")
	_, s = restart(t, e, cfg)
	insertAndCheck(t, s, 40, 45, "SELECT * FROM j WHERE k <> 7;", "after the restart")
}

// TestRebuiltDerivedStreamRebuildsReaders: when a derived stream's query
// is rebuilt from its inputs (its checkpoint is gone), its log is
// recomputed, and the view reading it, whose checkpoint recorded
// positions in the old log, is rebuilt too, with a notice.
func TestRebuiltDerivedStreamRebuildsReaders(t *testing.T) {
	e, s, cfg := derivedChain(t, 1, 10)
	d := query(e, "d").obj
	if err := e.halt(); err != nil {
		t.Fatal(err)
	}
	db, err := badger.Open(cfg.DataDir, badger.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DropState(stateJob(d.ID)); err != nil { // as a changed plan would
		t.Fatal(err)
	}
	db.Close()
	e = openEngine(t, cfg)
	defer e.Close()
	s = e.NewSession(SessionOptions{})
	res := run(t, s, "SELECT * FROM j;")
	wantNotice(t, res, "materialized view j is rebuilt from its inputs: a derived stream it reads was rebuilt")
	if got, want := sorted(text(res)), derivedTotals(10); got != want {
		t.Fatalf("after d's rebuild j holds\n%s\nwant\n%s", got, want)
	}
	insertAndCheck(t, s, 10, 15, "SELECT * FROM j;", "after more rows")
}
