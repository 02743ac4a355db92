package engine

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var viewScanRows = flag.Int("viewscan.rows", 10_000_000, "rows of the view BenchmarkViewScan reads")

// BenchmarkViewScan fills a materialized view with the auction and price
// of viewscan.rows Nexmark bids (an append-only view: its rows are stored
// as columns, with no index) and times pull queries over it: COUNT(*) and
// SUM(price) over every row, the same behind a filter, and behind a range
// of auction ids with and without the view skipping the segments outside
// it (the same range of auction + 0, which it cannot). It reports the
// rows the pull query reads per second, the view's fill rate and its
// memory per row. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkViewScan -benchtime 5x -count 3
func BenchmarkViewScan(b *testing.B) {
	// Bids are 46 of every 50 Nexmark events.
	events := int64(*viewScanRows) * 50 / 46
	e := openEngine(b, Config{Parallelism: 1, FileRoot: b.TempDir()})
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(b, s, fmt.Sprintf(`CREATE STREAM bid (auction BIGINT, price BIGINT)
		WITH (connector = 'nexmark', table = 'bid', events = '%d')`, events))
	start := time.Now()
	run(b, s, "CREATE MATERIALIZED VIEW v AS SELECT auction, price FROM bid")
	run(b, s, "FLUSH")
	fill := time.Since(start)
	rows, bytes := query(e, "v").mv.Size()
	b.Logf("view v: %d rows filled in %s (%.1fM rows/s), %.1f bytes/row", rows, fill,
		float64(rows)/fill.Seconds()/1e6, float64(bytes)/float64(rows))
	for _, q := range []struct{ name, sql string }{
		{"count_sum", "SELECT COUNT(*), SUM(price) FROM v"},
		{"filtered", "SELECT COUNT(*), SUM(price) FROM v WHERE price > 1000"},
		// A range of auction ids, which ascend with the bids: the view
		// skips the segments outside it (zone maps) ...
		{"auction_range", "SELECT COUNT(*), SUM(price) FROM v WHERE auction BETWEEN 300000 AND 301000"},
		// ... which it cannot for the same range of an expression.
		{"auction_range_unpruned", "SELECT COUNT(*), SUM(price) FROM v WHERE auction + 0 BETWEEN 300000 AND 301000"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				res := run(b, s, q.sql)
				if len(res.Rows) != 1 {
					b.Fatalf("%s: %d rows", q.sql, len(res.Rows))
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestViewScanRanges: a pull query's range on a view's column, which lets
// the view skip the segments outside it, answers as the same range of an
// expression over the column, which does not, over a view of many
// segments.
func TestViewScanRanges(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE STREAM bid (auction BIGINT, price BIGINT, date_time TIMESTAMP(3))
		WITH (connector = 'nexmark', table = 'bid', events = '200000');
		CREATE MATERIALIZED VIEW v AS SELECT auction, price, date_time FROM bid;
		FLUSH;`)
	plan := text(run(t, s, "EXPLAIN SELECT COUNT(*) FROM v WHERE auction >= 5000 AND auction < 5100;"))
	if !strings.Contains(plan, "prune=[auction >= 5000 AND auction < 5100]") {
		t.Errorf("the view's source prunes nothing:\n%s", plan)
	}
	for _, where := range []string{
		"auction BETWEEN 5000 AND 5100",
		"auction > 9000 AND price < 500",
		"auction = 7777",
		"auction < 100",
		"auction > 1000000",
		"date_time >= TIMESTAMP '2015-07-15 00:00:05.000' AND date_time < TIMESTAMP '2015-07-15 00:00:06.000'",
	} {
		pruned := text(run(t, s, "SELECT COUNT(*), SUM(price) FROM v WHERE "+where+";"))
		apart := strings.NewReplacer("auction", "(auction + 0)", "date_time", "(date_time + INTERVAL '0' SECOND)").Replace(where)
		whole := text(run(t, s, "SELECT COUNT(*), SUM(price) FROM v WHERE "+apart+";"))
		if pruned != whole {
			t.Errorf("WHERE %s: %s, without pruning %s", where, pruned, whole)
		}
	}
}
