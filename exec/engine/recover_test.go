package engine

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/dataflow"
)

// TestFailedQueryRecoversFromItsCheckpoint: tasks of checkpointed queries
// panic three times (an injected bug) while rows arrive; each failed query
// restarts from its last checkpoint, with the view over it, while the
// engine and the other queries go on, and in the end every view and the
// file sink hold exactly what they would without failures.
func TestFailedQueryRecoversFromItsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 2, CheckpointInterval: 5 * time.Millisecond}
	e := openEngine(t, cfg)
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM s (k INT, v INT);
		CREATE MATERIALIZED VIEW per_k AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;
		CREATE MATERIALIZED VIEW hist AS SELECT n, COUNT(*) AS ks FROM per_k GROUP BY n;
		CREATE SINK big AS SELECT k, v FROM s WHERE v > 90 WITH (connector = 'file', path = 'big.csv');`)
	var want strings.Builder
	for i := range 60 {
		if i%20 == 10 {
			dataflow.InjectTestPanics(1) // the next chunk a checkpointed task takes
		}
		var b strings.Builder
		b.WriteString("INSERT INTO s VALUES ")
		for j := range 5 {
			if j > 0 {
				b.WriteString(", ")
			}
			k, v := (i*5+j)%7, (i*5+j)%100
			b.WriteString("(" + itoa(k) + ", " + itoa(v) + ")")
			if v > 90 {
				want.WriteString(itoa(k) + "," + itoa(v) + "\n")
			}
		}
		run(t, s, b.String()+";")
		time.Sleep(time.Millisecond)
	}
	dataflow.ResetTestPanics() // an injected panic not taken yet is not to come later
	if n := e.recovery.done.Load(); n == 0 {
		t.Fatal("no task failed: the test tested nothing")
	}
	// Let the last recoveries finish (a query fails before its recovery
	// starts), then check.
	retried := func(sql string) *Result {
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := execOne(t, s, sql)
			if err == nil {
				return res
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s after the failures: %v", sql, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	retried("FLUSH;")
	if got, want := sorted(text(retried("SELECT * FROM per_k;"))), perK(60*5); got != want {
		t.Fatalf("per_k holds\n%s\nwant\n%s", got, want)
	}
	if got, want := sorted(text(retried("SELECT * FROM hist;"))), "42 | 1\n43 | 6\n"; got != want {
		t.Fatalf("hist holds\n%s\nwant\n%s", got, want)
	}
	if got := readOut(t, filepath.Join(dir, "big.csv")); got != want.String() {
		t.Fatalf("big.csv holds\n%s\nwant\n%s", got, want.String())
	}
}

// perK is per_k's content after rows 0..n-1 with k = i%7, v = i%100.
func perK(n int) string {
	counts, sums := map[int]int{}, map[int]int{}
	for i := range n {
		counts[i%7]++
		sums[i%7] += i % 100
	}
	var lines []string
	for k := range 7 {
		lines = append(lines, itoa(k)+" | "+itoa(counts[k])+" | "+itoa(sums[k]))
	}
	return sorted(strings.Join(lines, "\n"))
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestFlushWaitsForARestartThatStartsDuringIt: a query restarting from
// its checkpoint (a recovery) leaves the engine's running queries until
// it is back; a FLUSH during which one begins is made again once it is
// back, rather than returning with that query neither flushed nor
// reported failed (a view then read right after the FLUSH would have
// shown its checkpoint's rows without the input read since).
func TestFlushWaitsForARestartThatStartsDuringIt(t *testing.T) {
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM s (k INT, v INT);
		CREATE MATERIALIZED VIEW per_k AS SELECT k, COUNT(*) AS n, SUM(v) AS total FROM s GROUP BY k;
		INSERT INTO s VALUES (1, 1), (2, 2);
		FLUSH;`)
	// The restart, as restartWithReaders makes it: the query leaves
	// e.queries, and comes back a while later.
	var back atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	var once sync.Once
	e.afterFlushCollect = func() {
		once.Do(func() {
			e.mu.Lock()
			q := e.queries["per_k"]
			delete(e.queries, "per_k")
			e.recovery.started.Add(1)
			e.recovery.active.Add(1)
			e.mu.Unlock()
			wg.Go(func() {
				time.Sleep(100 * time.Millisecond)
				e.mu.Lock()
				e.queries["per_k"] = q
				back.Store(true)
				e.recovery.active.Add(-1)
				e.mu.Unlock()
			})
		})
	}
	run(t, s, "INSERT INTO s VALUES (1, 10); FLUSH;")
	if !back.Load() {
		t.Fatal("FLUSH returned while a query was restarting")
	}
	if got, want := sorted(text(run(t, s, "SELECT * FROM per_k;"))), "1 | 2 | 11\n2 | 1 | 2\n"; got != want {
		t.Fatalf("per_k after the FLUSH holds\n%s\nwant\n%s", got, want)
	}
}
