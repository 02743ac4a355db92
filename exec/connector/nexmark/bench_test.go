package nexmark

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/exectest"
)

// benchEvents is the length of the sequence each benchmark iteration
// generates (all kinds; a table keeps its share).
const benchEvents = 1_000_000

// benchGenerate generates the first benchEvents events as table, with
// columns declared (nil: all), once per iteration, and reports events of
// the global sequence per second and rows per second.
func benchGenerate(b *testing.B, table string, columns []catalog.Column) {
	cfg := testConfig(table, benchEvents)
	cfg.Columns = columns
	benchConfig(b, cfg)
}

// benchGenerateAll is benchGenerate of table, all its columns, under
// generate = 'all'.
func benchGenerateAll(b *testing.B, table string) {
	cfg := testConfig(table, benchEvents)
	cfg.Generate = []string{TablePerson, TableAuction, TableBid}
	benchConfig(b, cfg)
}

// benchConfig generates cfg once per iteration and reports events of the
// global sequence per second and rows per second.
func benchConfig(b *testing.B, cfg Config) {
	ctx := context.Background()
	env := exec.NewTestEnv(memory.NewGoAllocator())
	rows := 0
	b.ReportAllocs()
	for b.Loop() {
		src, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := src.Open(ctx, env); err != nil {
			b.Fatal(err)
		}
		if err := exectest.Drain(ctx, src, func(c exec.Chunk) error { rows += c.NumRows(); return nil }); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)*benchEvents/sec, "events/s")
	b.ReportMetric(float64(rows)/sec, "rows/s")
}

// BenchmarkGenerate generates the bid table with all its columns: 920,000
// bids out of 1M events.
func BenchmarkGenerate(b *testing.B) { benchGenerate(b, TableBid, nil) }

// BenchmarkGenerateBidNumbers generates only the bid table's numeric
// columns, as a query that reads auction, bidder, price and date_time
// would.
func BenchmarkGenerateBidNumbers(b *testing.B) {
	benchGenerate(b, TableBid, cols(b, TableBid, "auction", "bidder", "price", "date_time"))
}

// BenchmarkGenerateAuction generates the auction table: 60,000 auctions.
func BenchmarkGenerateAuction(b *testing.B) { benchGenerate(b, TableAuction, nil) }

// BenchmarkGeneratePerson generates the person table: 20,000 persons.
func BenchmarkGeneratePerson(b *testing.B) { benchGenerate(b, TablePerson, nil) }

// BenchmarkGenerateAll generates the bid table under generate = 'all':
// every event of the sequence is built, every column, and the bids kept.
// Its events/s is the whole generator's, to set against the three tables
// above together.
func BenchmarkGenerateAll(b *testing.B) {
	benchGenerateAll(b, TableBid)
}

// BenchmarkGenerateAllPerson generates the person table under generate =
// 'all': the same work as BenchmarkGenerateAll, 2 % of it kept.
func BenchmarkGenerateAllPerson(b *testing.B) {
	benchGenerateAll(b, TablePerson)
}
