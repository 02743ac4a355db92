package engine

import (
	"context"
	"flag"
	"fmt"
	"testing"

	"github.com/eddysql/eddy/sql"
)

var (
	tumbleBenchEvents = flag.Int("tumblebench.events", 10_000_000,
		"Nexmark events (persons, auctions and bids) of BenchmarkTumbleParallelism")
	tumbleBenchTwoPhase = flag.String("tumblebench.twophase", "auto", "SET two_phase_agg for BenchmarkTumbleParallelism")
)

// BenchmarkTumbleParallelism runs a tumbling-window count per auction
// (10-second windows, emitted when they close, into a blackhole sink) over
// the bids of a bounded Nexmark sequence, at parallelism 1 and 2 in one
// run: the generator, the window assignment and the aggregation all run at
// the stage's parallelism, so the ratio of the two rates is the scaling
// the dataflow gets from the second core. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkTumbleParallelism -benchtime 1x -count 5 -cpu 2
func BenchmarkTumbleParallelism(b *testing.B) {
	for _, p := range []int{1, 2} {
		b.Run(fmt.Sprintf("p=%d", p), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e, err := Open(context.Background(), Config{Parallelism: p, BaseDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				s := e.NewSession(SessionOptions{})
				run := func(text string) {
					st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Execute(context.Background(), st); err != nil {
						b.Fatalf("%s: %v", text, err)
					}
				}
				run(fmt.Sprintf(`CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3),
					WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
					WITH (connector = 'nexmark', table = 'bid', events = '%d')`, *tumbleBenchEvents))
				run("SET two_phase_agg = " + *tumbleBenchTwoPhase)
				b.StartTimer()
				run(`CREATE SINK counts AS
					SELECT auction, window_start, COUNT(*) AS n
					FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
					GROUP BY auction, window_start
					WITH (connector = 'blackhole')`)
				run("FLUSH")
				b.StopTimer()
				if err := e.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(*tumbleBenchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
