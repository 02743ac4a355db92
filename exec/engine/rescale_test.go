package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// rescaleQueries are the queries the rescale tests move while rows
// arrive: a windowed aggregate (its running results update), a regular
// join of two streams (state on both sides) and a Top-N (retractions of
// the rows it drops).
var rescaleQueries = []struct{ name, query string }{
	{"tumble", `SELECT auction, window_start, COUNT(*) AS n, SUM(price) AS total
		FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY auction, window_start`},
	{"join", `SELECT b.auction, b.price, a.seller FROM bid b JOIN auction a ON b.auction = a.id`},
	{"topn", `SELECT auction, price FROM (SELECT auction, price,
		ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bid) WHERE rn <= 3`},
}

// rebuiltQueries are queries the rescale tests move by rebuilding them
// from their inputs, as they are not checkpointed: one over a view (of
// rescaleSchema's per_auction), and one created with checkpoint_interval
// = '0' (its query, in a session with that setting).
var rebuiltQueries = []struct{ name, setup, query string }{
	{"over a view", "", `SELECT n, COUNT(*) AS auctions FROM per_auction GROUP BY n`},
	{"not checkpointed", "SET checkpoint_interval = '0';", `SELECT auction, MAX(price) AS hi, COUNT(*) AS n FROM bid GROUP BY auction`},
}

// rescaleSchema creates the streams the rescale tests read.
const rescaleSchema = `CREATE STREAM bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
		WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
	CREATE STREAM auction (id BIGINT, seller BIGINT);
	CREATE MATERIALIZED VIEW per_auction AS SELECT auction, COUNT(*) AS n FROM bid GROUP BY auction;`

// insertBatch inserts batch i of the rescale tests' input: 20 bids of
// 40 auctions, their prices unique and their times a second apart per
// batch (some out of order, within the watermark's delay), and the
// auction whose id is i.
func insertBatch(t *testing.T, s *Session, i int) {
	t.Helper()
	if err := tryInsertBatch(s, i); err != nil {
		t.Fatal(err)
	}
}

// tryInsertBatch is insertBatch for another goroutine than the test's.
func tryInsertBatch(s *Session, i int) error {
	var b strings.Builder
	b.WriteString("INSERT INTO bid VALUES ")
	for r := range 20 {
		if r > 0 {
			b.WriteString(", ")
		}
		ms := i*1000 + (r*37)%900
		fmt.Fprintf(&b, "(%d, %d, '2024-01-01 00:%02d:%02d.%03d')", (i*7+r)%40, i*20+r, ms/60000, ms/1000%60, ms%1000)
	}
	b.WriteString(fmt.Sprintf("; INSERT INTO auction VALUES (%d, %d);", i%40, i%5))
	stmts, err := sql.Parse(b.String())
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := s.Execute(context.Background(), st); err != nil {
			return fmt.Errorf("batch %d: %w", i, err)
		}
	}
	return nil
}

// changelog integrates the changes of a push query: each row (as text,
// without its op) with its count.
type changelog struct {
	mu       sync.Mutex
	counts   map[string]int
	bad      []string    // changes that retracted a row the integral did not hold
	arrivals []time.Time // when each batch of changes arrived
	err      error
}

// read integrates the changes of stream until ctx is done.
func (c *changelog) read(ctx context.Context, st *Stream, ts []types.T) {
	for {
		rows, err := st.Next(ctx)
		if err != nil {
			c.mu.Lock()
			if ctx.Err() == nil {
				c.err = err
			}
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		c.arrivals = append(c.arrivals, time.Now())
		for _, row := range rows {
			c.applyLocked(row[0].S, rowText(row[1:], ts))
		}
		c.mu.Unlock()
	}
}

// apply integrates one change, op (+I, -D, -U, +U) of row.
func (c *changelog) apply(op, row string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.applyLocked(op, row)
}

func (c *changelog) applyLocked(op, row string) {
	switch op {
	case "+I", "+U":
		c.counts[row]++
	default:
		if c.counts[row] == 0 {
			c.bad = append(c.bad, op+" "+row)
			return
		}
		c.counts[row]--
		if c.counts[row] == 0 {
			delete(c.counts, row)
		}
	}
}

// rows returns the integral as sorted text lines.
func (c *changelog) rows() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for k, n := range c.counts {
		for range n {
			lines = append(lines, k)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func rowText(row []types.Datum, ts []types.T) string {
	parts := make([]string, len(row))
	for i, d := range row {
		parts[i] = types.Format(d, ts[i])
	}
	return strings.Join(parts, " | ")
}

// viewRows returns the rows of a pull query over view as sorted lines.
func viewRows(t *testing.T, s *Session, view string) string {
	t.Helper()
	return strings.TrimSuffix(sorted(text(run(t, s, "SELECT * FROM "+view+";"))), "\n")
}

// TestRescaleWhileRowsArrive moves the query of a view from parallelism 1
// to 2, back to 1 and on to 3 while another session inserts rows: after
// the last rows, the view holds exactly what the same query computes in a
// view that never moved (at parallelism 2), and so does a view over it; a
// push query subscribed to the view before the first move received a
// changelog that integrates to those rows, never retracting a row it did
// not hold. SHOW QUERIES
// and EXPLAIN ANALYZE show the new parallelism, and each move leaves a
// notice with its pause and the state it moved.
//
// The queries that are not checkpointed are rebuilt from their inputs at
// each move: the push query gets the difference, and the same holds.
func TestRescaleWhileRowsArrive(t *testing.T) {
	type testQuery struct {
		name, setup, query string
		notice             []string
	}
	var queries []testQuery
	for _, q := range rescaleQueries {
		queries = append(queries, testQuery{q.name, "", q.query, []string{"processing paused", "of state restored"}})
	}
	for _, q := range rebuiltQueries {
		queries = append(queries, testQuery{q.name, q.setup, q.query, []string{"by rebuilding it from its inputs", "its readers received the difference"}})
	}
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 1, CheckpointInterval: 20 * time.Millisecond}
			e := openEngine(t, cfg)
			t.Cleanup(func() { e.Close() })
			s := e.NewSession(SessionOptions{})
			// v computes fixed's query itself, not from fixed's rows.
			run(t, s, rescaleSchema+`
				SET share_views = off;
				SET parallelism = 2;
				CREATE MATERIALIZED VIEW fixed AS `+q.query+`;
				SET parallelism = 1;
				`+q.setup+`
				CREATE MATERIALIZED VIEW v AS `+q.query+`;
				CREATE MATERIALIZED VIEW reader AS SELECT * FROM v;`)
			insertBatch(t, s, 0)
			run(t, s, "FLUSH;")

			push := e.NewSession(SessionOptions{Interactive: true})
			res, err := execOne(t, push, "SELECT * FROM v EMIT CHANGES;")
			if err != nil {
				t.Fatal(err)
			}
			var ts []types.T
			for _, c := range res.Columns[1:] {
				ts = append(ts, c.Type)
			}
			log := &changelog{counts: map[string]int{}}
			pctx, pcancel := context.WithCancel(ctx)
			var readers sync.WaitGroup
			readers.Go(func() { log.read(pctx, res.Stream, ts) })
			defer func() {
				pcancel()
				readers.Wait()
				res.Stream.Close()
			}()

			// Rows arrive all along, from another session.
			const batches = 120
			inserted := make(chan int, batches)
			var inserter sync.WaitGroup
			var insertErr error
			inserter.Go(func() {
				defer close(inserted)
				ins := e.NewSession(SessionOptions{})
				for i := 1; i < batches; i++ {
					if insertErr = tryInsertBatch(ins, i); insertErr != nil {
						return
					}
					inserted <- i
					time.Sleep(time.Millisecond)
				}
			})
			waitFor := func(n int) {
				for i := range inserted {
					if i >= n {
						return
					}
				}
			}
			alter := e.NewSession(SessionOptions{})
			var moves []string
			for k, p := range []int{2, 1, 3} {
				waitFor(30 * (k + 1))
				r := run(t, alter, fmt.Sprintf("ALTER MATERIALIZED VIEW v SET (parallelism = %d);", p))
				wantNotice(t, r, append([]string{fmt.Sprintf("materialized view v rescaled from parallelism %d to %d", []int{1, 2, 1}[k], p)}, q.notice...)...)
				moves = append(moves, r.Notices...)
				if got := query(e, "v").job.Parallelism(); got != p {
					t.Fatalf("after ALTER ... SET (parallelism = %d) the job runs at %d", p, got)
				}
			}
			for range inserted {
			}
			insertsEnded := time.Now()
			inserter.Wait()
			if insertErr != nil {
				t.Fatal(insertErr)
			}
			run(t, s, "FLUSH;")

			want := viewRows(t, s, "fixed")
			if got := viewRows(t, s, "v"); got != want {
				t.Fatalf("after the moves v holds\n%s\nwant (as a view that never moved)\n%s", got, want)
			}
			if got := viewRows(t, s, "reader"); got != want {
				t.Fatalf("after the moves a view over v holds\n%s\nwant\n%s", got, want)
			}
			deadline := time.Now().Add(30 * time.Second)
			for log.rows() != want && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			log.mu.Lock()
			bad, perr := log.bad, log.err
			log.mu.Unlock()
			if got := log.rows(); got != want || len(bad) > 0 || perr != nil {
				t.Fatalf("the push query's changes integrate to\n%s\nwant\n%s\n(retractions of rows it did not hold: %q; error: %v)", got, want, bad, perr)
			}
			// The figure the moves are about: the longest gap between two
			// batches of the push query's changes while rows arrived
			// (every few milliseconds), against the pauses they report.
			log.mu.Lock()
			var gap time.Duration
			for i := 1; i < len(log.arrivals) && log.arrivals[i].Before(insertsEnded); i++ {
				gap = max(gap, log.arrivals[i].Sub(log.arrivals[i-1]))
			}
			log.mu.Unlock()
			t.Logf("longest gap between the push query's outputs while rows arrived: %s; the moves: %q", gap, moves)

			if row := showRow(t, s, "QUERIES", "v"); !strings.HasPrefix(row, "v | materialized view | running | 3 |") {
				t.Errorf("SHOW QUERIES lists v as %q", row)
			}
			if plan := text(run(t, s, "EXPLAIN ANALYZE v;")); !regexp.MustCompile(`instances=3`).MatchString(plan) {
				t.Errorf("EXPLAIN ANALYZE v shows no parallelism 3:\n%s", plan)
			}
		})
	}
}

// TestRescaleSurvivesARestart: a view rescaled to parallelism 2 runs at 2
// after a restart, resumed from its checkpoint (not rebuilt: the plan at
// 2 has the layout the checkpoint was written in), and after a crash that
// loses what came after the move's checkpoint; either way it holds every
// row once, as a view created afterwards over the same input does. A
// view over a view, rebuilt at parallelism 3, runs at 3.
func TestRescaleSurvivesARestart(t *testing.T) {
	for _, stop := range []string{"restart", "crash"} {
		t.Run(stop, func(t *testing.T) {
			e, s, cfg := checkpointedEngine(t, 1)
			run(t, s, rescaleSchema+`CREATE MATERIALIZED VIEW v AS `+rescaleQueries[0].query+`;
				CREATE MATERIALIZED VIEW vv AS `+rebuiltQueries[0].query+`;`)
			for i := range 10 {
				insertBatch(t, s, i)
			}
			run(t, s, `FLUSH; ALTER MATERIALIZED VIEW v SET (parallelism = 2); ALTER MATERIALIZED VIEW vv SET (parallelism = 3);`)
			for i := 10; i < 15; i++ {
				insertBatch(t, s, i)
			}
			run(t, s, "FLUSH;")
			if stop == "restart" {
				e, s = restart(t, e, cfg)
			} else {
				e, s = crash(t, e, cfg)
			}
			res := run(t, s, "SHOW QUERIES;")
			wantNotice(t, res, "materialized view v resumed from its checkpoint")
			for _, n := range res.Notices {
				if strings.Contains(n, "rebuilt") {
					t.Errorf("notice: %s", n)
				}
			}
			if got := query(e, "v").job.Parallelism(); got != 2 {
				t.Fatalf("after a %s v runs at parallelism %d, want 2", stop, got)
			}
			if got := query(e, "vv").job.Parallelism(); got != 3 {
				t.Fatalf("after a %s vv, rebuilt at parallelism 3, runs at %d", stop, got)
			}
			for i := 15; i < 20; i++ {
				insertBatch(t, s, i)
			}
			run(t, s, `FLUSH; CREATE MATERIALIZED VIEW w AS `+rescaleQueries[0].query+`; FLUSH;`)
			if got, want := viewRows(t, s, "v"), viewRows(t, s, "w"); got != want {
				t.Fatalf("after a %s v holds\n%s\nwant\n%s", stop, got, want)
			}
		})
	}
}
