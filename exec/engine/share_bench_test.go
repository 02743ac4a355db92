package engine

import (
	"flag"
	"fmt"
	"testing"
)

var shareBenchEvents = flag.Int("sharebench.events", 5_000_000, "Nexmark events of BenchmarkSharedViews")

// shareBenchAgg is the scan, filter and aggregate the views of
// BenchmarkSharedViews share.
const shareBenchAgg = `SELECT auction, COUNT(*) AS n, MAX(price) AS top FROM bid WHERE price > 1000 GROUP BY auction`

// BenchmarkSharedViews measures shared work across queries: the CPU time
// of one view of a scan, filter and aggregate over Nexmark's bids
// ("one"), of it and a second view over the same aggregate that reads
// the first's rows ("two"), and of the two computed apart
// (share_views = off, "two-apart"), in one run. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkSharedViews -benchtime 1x -count 5 -cpu 2
//
// and compare the cpu-ms/op of "two" with "one".
func BenchmarkSharedViews(b *testing.B) {
	second := `CREATE MATERIALIZED VIEW busy AS SELECT COUNT(*) AS auctions, MAX(top) AS top FROM (` + shareBenchAgg + `) t WHERE n > 3;`
	for _, c := range []struct{ name, views string }{
		{"one", ""},
		{"two", second},
		{"two-apart", "SET share_views = off; " + second},
	} {
		b.Run(c.name, func(b *testing.B) {
			var cpu int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := openEngine(b, Config{Parallelism: 1})
				s := e.NewSession(SessionOptions{})
				run(b, s, fmt.Sprintf(`CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3),
					WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
					WITH (connector = 'nexmark', table = 'bid', events = '%d')`, *shareBenchEvents))
				start := processCPU()
				b.StartTimer()
				run(b, s, "CREATE MATERIALIZED VIEW per_auction AS "+shareBenchAgg+"; "+c.views+" FLUSH;")
				b.StopTimer()
				cpu += int64(processCPU() - start)
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(*shareBenchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
