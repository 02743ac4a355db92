package engine

import (
	"flag"
	"fmt"
	"testing"
	"time"
)

var viewScanRows = flag.Int("viewscan.rows", 10_000_000, "rows of the view BenchmarkViewScan reads")

// BenchmarkViewScan fills a materialized view with the auction and price
// of viewscan.rows Nexmark bids (an append-only view: its rows are stored
// as columns, with no index) and times pull queries over it: COUNT(*) and
// SUM(price) over every row, and the same behind a filter. It reports the
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
