package engine

import (
	"flag"
	"fmt"
	"testing"
)

var (
	tumbleBenchEvents = flag.Int("tumblebench.events", 10_000_000,
		"Nexmark events (persons, auctions and bids) of BenchmarkTumbleParallelism")
	tumbleBenchTwoPhase = flag.String("tumblebench.twophase", "auto", "SET two_phase_agg for BenchmarkTumbleParallelism")
)

// BenchmarkTumbleParallelism runs tumbling-window counts (10-second
// windows, into a blackhole sink) over the bids of a bounded Nexmark
// sequence, at parallelism 1 and 2 in one run: the generator, the window
// assignment and the aggregation all run at the stage's parallelism, so
// the ratio of the two rates is the scaling the dataflow gets from the
// second core. Two shapes: "window" counts the bids of each window (few
// groups: the optimizer aggregates each split's batches locally and
// shuffles only partial counts), "auction" counts each auction's bids per
// window (many groups: every bid is shuffled by auction). Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkTumbleParallelism -benchtime 1x -count 5 -cpu 2
func BenchmarkTumbleParallelism(b *testing.B) {
	shapes := []struct{ name, query string }{
		{"window", `SELECT window_start, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
			GROUP BY window_start`},
		{"auction", `SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND)
			GROUP BY auction, window_start`},
	}
	for _, shape := range shapes {
		for _, p := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/p=%d", shape.name, p), func(b *testing.B) { tumbleBench(b, p, shape.query) })
		}
	}
}

// tumbleBench runs query into a blackhole sink at parallelism p.
func tumbleBench(b *testing.B, p int, query string) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := openEngine(b, Config{Parallelism: p, FileRoot: b.TempDir()})
		s := e.NewSession(SessionOptions{})
		run(b, s, fmt.Sprintf(`CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3),
					WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND)
					WITH (connector = 'nexmark', table = 'bid', events = '%d')`, *tumbleBenchEvents))
		run(b, s, "SET two_phase_agg = "+*tumbleBenchTwoPhase)
		b.StartTimer()
		run(b, s, "CREATE SINK counts AS "+query+" WITH (connector = 'blackhole')")
		run(b, s, "FLUSH")
		b.StopTimer()
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(*tumbleBenchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
