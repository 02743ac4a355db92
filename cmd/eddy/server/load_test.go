package server

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The load of issue 11: inserters, each on its own connection, run many
// INSERT statements into a stream that feeds materialized views, while
// push queries watch the views on other connections.
const (
	loadInserters = 32
	loadPushes    = 8
)

// loadViews are the views over the stream ev (c: the inserter, i: its
// insert's number, k: one of five keys), and what each push query reads
// (push query p watches loadViews[p % len]).
var loadViews = []struct{ name, def string }{
	{"per_client", "SELECT c, COUNT(*) AS n, SUM(i) AS total FROM ev GROUP BY c"},
	{"per_key", "SELECT k, COUNT(*) AS n, MAX(i) AS top FROM ev GROUP BY k"},
	{"overall", "SELECT COUNT(*) AS n, SUM(i) AS total FROM ev"},
}

// loadRun is one run of the load on a server.
type loadRun struct {
	tb      testing.TB
	db      *sql.DB
	admin   *sql.Conn
	watches []*integral
	cancel  context.CancelFunc
}

// integral is the content a push query's changes add up to: each row's
// count, +1 for +I and +U, -1 for -D and -U.
type integral struct {
	view string
	mu   sync.Mutex
	rows map[string]int
	err  error // the push query's error once it ends
	done chan struct{}
}

// snapshot returns the rows with a non-zero count.
func (g *integral) snapshot() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]int{}
	for k, n := range g.rows {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// startLoad creates the stream and views on srv and starts pushes push
// queries, each on a connection of its own.
func startLoad(tb testing.TB, srv *Server, pushes int) *loadRun {
	db, err := sql.Open("mysql", "root@tcp("+srv.Addr()+")/")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxIdleConns(loadInserters + loadPushes + 1)
	tb.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	l := &loadRun{tb: tb, db: db, cancel: cancel}
	if l.admin, err = db.Conn(ctx); err != nil {
		tb.Fatal(err)
	}
	l.exec(l.admin, "CREATE STREAM ev (c BIGINT, i BIGINT, k VARCHAR)")
	for _, v := range loadViews {
		l.exec(l.admin, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.def)
	}
	for p := range pushes {
		c, err := db.Conn(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		v := loadViews[p%len(loadViews)].name
		rows, err := c.QueryContext(ctx, "SELECT * FROM "+v+" EMIT CHANGES")
		if err != nil {
			tb.Fatalf("push query on %s: %v", v, err)
		}
		g := &integral{view: v, rows: map[string]int{}, done: make(chan struct{})}
		l.watches = append(l.watches, g)
		go g.follow(c, rows)
	}
	return l
}

// follow adds up a push query's changes until it ends.
func (g *integral) follow(c *sql.Conn, rows *sql.Rows) {
	defer close(g.done)
	defer c.Close()
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		r, err := scanRow(rows, len(cols))
		if err != nil {
			g.err = err
			return
		}
		key := strings.Join(r[1:], "|")
		g.mu.Lock()
		switch r[0] {
		case "+I", "+U":
			g.rows[key]++
		case "-D", "-U":
			g.rows[key]--
		default:
			g.err = fmt.Errorf("op %q", r[0])
		}
		g.mu.Unlock()
	}
	g.err = rows.Err()
}

// exec runs a statement, failing the test on an error.
func (l *loadRun) exec(c *sql.Conn, stmt string) {
	l.tb.Helper()
	if _, err := c.ExecContext(context.Background(), stmt); err != nil {
		l.tb.Fatalf("%s: %v", stmt, err)
	}
}

// insert runs len(inserts) inserters at once, inserter c running
// inserts[c] single-row INSERTs of (c, i, 'k<i%5>') for i from 0, and
// returns every INSERT's latency.
func (l *loadRun) insert(inserts []int) []time.Duration {
	conns := make([]*sql.Conn, len(inserts))
	for c := range conns {
		var err error
		if conns[c], err = l.db.Conn(context.Background()); err != nil {
			l.tb.Fatal(err)
		}
		defer conns[c].Close()
	}
	lat := make([][]time.Duration, len(inserts))
	errs := make(chan error, len(inserts))
	var wg sync.WaitGroup
	for c := range inserts {
		wg.Go(func() {
			lat[c] = make([]time.Duration, 0, inserts[c])
			for i := range inserts[c] {
				stmt := fmt.Sprintf("INSERT INTO ev VALUES (%d, %d, 'k%d')", c, i, i%5)
				start := time.Now()
				if _, err := conns[c].ExecContext(context.Background(), stmt); err != nil {
					errs <- fmt.Errorf("inserter %d: %s: %w", c, stmt, err)
					return
				}
				lat[c] = append(lat[c], time.Since(start))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		l.tb.Fatal(err)
	}
	return slices.Concat(lat...)
}

// expected returns the rows each view must hold after inserts, as the
// push queries' integrals key them.
func expected(inserts []int) map[string]map[string]int {
	perKey := map[int][2]int64{} // key → count, max i
	var n, total int64
	want := map[string]map[string]int{"per_client": {}, "per_key": {}, "overall": {}}
	for c, m := range inserts {
		var sum int64
		for i := range m {
			sum += int64(i)
			e := perKey[i%5]
			perKey[i%5] = [2]int64{e[0] + 1, max(e[1], int64(i))}
		}
		if m > 0 {
			want["per_client"][fmt.Sprintf("%d|%d|%d", c, m, sum)] = 1
		}
		n, total = n+int64(m), total+sum
	}
	for k, e := range perKey {
		want["per_key"][fmt.Sprintf("k%d|%d|%d", k, e[0], e[1])] = 1
	}
	want["overall"][fmt.Sprintf("%d|%d", n, total)] = 1
	return want
}

// verify flushes, checks that every view holds exactly the expected
// rows, waits (up to 10 s) for every push query's changes to add up to
// its view's content, and stops the push queries.
func (l *loadRun) verify(inserts []int) {
	l.tb.Helper()
	l.exec(l.admin, "FLUSH")
	want := expected(inserts)
	for _, v := range loadViews {
		got := map[string]int{}
		rows, err := l.admin.QueryContext(context.Background(), "SELECT * FROM "+v.name)
		if err != nil {
			l.tb.Fatal(err)
		}
		all, err := scanAll(rows)
		rows.Close()
		if err != nil {
			l.tb.Fatal(err)
		}
		for _, r := range all {
			got[strings.Join(r, "|")]++
		}
		if !maps.Equal(got, want[v.name]) {
			l.tb.Errorf("view %s holds %d rows, want %d:\n got %v\nwant %v", v.name, len(got), len(want[v.name]), got, want[v.name])
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for p, g := range l.watches {
		for !maps.Equal(g.snapshot(), want[g.view]) {
			if time.Now().After(deadline) {
				l.tb.Errorf("push query %d on %s adds up to %v, want %v (error %v)", p, g.view, g.snapshot(), want[g.view], g.err)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	l.cancel() // the driver closes the push queries' sockets
	for _, g := range l.watches {
		<-g.done
	}
}

// TestConcurrentLoad is the concurrency test of issue 11: 32 inserters,
// each on its own connection, run 40 single-row INSERTs each into a
// stream feeding three views, while 8 push queries watch the views; no
// row is lost or duplicated in any view, and each push query's changes
// add up to its view's content. Run it with -race.
func TestConcurrentLoad(t *testing.T) {
	var logs *logCapture
	srv := startServerWith(t, func(cfg *Config) { logs = captureLogs(cfg) })
	defer func() {
		if t.Failed() {
			t.Log(strings.Join(logs.all(), "\n"))
		}
	}()
	l := startLoad(t, srv, loadPushes)
	inserts := slices.Repeat([]int{40}, loadInserters)
	start := time.Now()
	l.insert(inserts)
	t.Logf("%d INSERTs in %v", 40*loadInserters, time.Since(start))
	l.verify(inserts)
	if st := srv.Stats(); st.ConnectionsRefused != 0 || st.StatementsRefused != 0 {
		t.Errorf("stats %+v: the defaults refused part of the load", st)
	}
}

// BenchmarkConcurrentInserts runs the load of TestConcurrentLoad (32
// inserters, 8 push queries) with b.N INSERTs spread over the
// inserters, and reports the p50 and p99 latency of an INSERT and the
// INSERTs per second of all inserters together. The baseline is one
// inserter and no push query: an INSERT's latency on an idle server.
func BenchmarkConcurrentInserts(b *testing.B) {
	for _, bc := range []struct{ inserters, pushes int }{{loadInserters, loadPushes}, {1, 0}} {
		b.Run(fmt.Sprintf("inserters=%d/pushes=%d", bc.inserters, bc.pushes), func(b *testing.B) {
			srv := startServer(b)
			l := startLoad(b, srv, bc.pushes)
			inserts := make([]int, bc.inserters)
			for c := range inserts {
				inserts[c] = b.N / bc.inserters
				if c < b.N%bc.inserters {
					inserts[c]++
				}
			}
			b.ResetTimer()
			start := time.Now()
			lat := l.insert(inserts)
			elapsed := time.Since(start)
			b.StopTimer()
			slices.Sort(lat)
			ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "inserts/s")
			l.verify(inserts)
		})
	}
}
