package file

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
	"github.com/eddysql/eddy/exec/exectest"
)

// benchRows is the size of the benchmark files.
const benchRows = 1_000_000

var (
	benchDir  string
	benchOnce sync.Once
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchFiles writes, once per test binary, bench.csv and bench.jsonl with
// benchRows rows of (auction, bidder, price BIGINT, channel VARCHAR,
// date_time TIMESTAMP(3)), shaped like Nexmark bids.
func benchFiles(b *testing.B) string {
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "eddy-file-bench"); benchErr != nil {
			return
		}
		channels := []string{"apple", "google", "facebook", "baidu", "channel-1234", "channel-77"}
		write := func(name string, row func(w *bufio.Writer, i int)) {
			f, err := os.Create(filepath.Join(benchDir, name))
			if err != nil {
				benchErr = err
				return
			}
			w := bufio.NewWriterSize(f, 1<<20)
			for i := range benchRows {
				row(w, i)
			}
			if err := w.Flush(); err != nil {
				benchErr = err
			}
			f.Close()
		}
		const t0 = int64(1704067200000)
		write("bench.csv", func(w *bufio.Writer, i int) {
			fmt.Fprintf(w, "%d,%d,%d,%s,%s\n", 1000+i/10, 2000+i%997, 100+i*7%100000,
				channels[i%len(channels)], types.FormatTimestamp(t0+int64(i)*7, 3))
		})
		write("bench.jsonl", func(w *bufio.Writer, i int) {
			fmt.Fprintf(w, `{"auction":%d,"bidder":%d,"price":%d,"channel":"%s","date_time":"%s"}`+"\n",
				1000+i/10, 2000+i%997, 100+i*7%100000, channels[i%len(channels)], types.FormatTimestamp(t0+int64(i)*7, 3))
		})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

func benchSource(b *testing.B, name, format string) {
	dir := benchFiles(b)
	cs := cols(b, "auction BIGINT", "bidder BIGINT", "price BIGINT", "channel VARCHAR", "date_time TIMESTAMP(3)")
	env := exec.NewTestEnv(memory.NewGoAllocator())
	root := conntest.RootAt(b, dir)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s, err := New(Config{Path: name, Root: root, Format: format, Columns: cs})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Open(context.Background(), env); err != nil {
			b.Fatal(err)
		}
		rows := 0
		if err := exectest.Drain(context.Background(), s, func(c exec.Chunk) error { rows += c.NumRows(); return nil }); err != nil {
			b.Fatal(err)
		}
		s.Close()
		if rows != benchRows {
			b.Fatalf("read %d rows, want %d", rows, benchRows)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCSV reads a 1M-row CSV file of five columns (3 BIGINT, VARCHAR,
// TIMESTAMP(3)).
func BenchmarkCSV(b *testing.B) { benchSource(b, "bench.csv", FormatCSV) }

// BenchmarkJSON reads the same rows as JSON lines.
func BenchmarkJSON(b *testing.B) { benchSource(b, "bench.jsonl", FormatJSON) }

// BenchmarkDecoderJSON decodes JSON messages shaped like the Kafka
// benchmark's bids (numbers for the timestamp) with a Decoder, as the Kafka
// source does, in rows per second.
func BenchmarkDecoderJSON(b *testing.B) {
	cs := cols(b, "auction BIGINT", "bidder BIGINT", "price BIGINT", "channel VARCHAR", "date_time TIMESTAMP(3)")
	const n = 4096
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = fmt.Appendf(nil, `{"auction": %d, "bidder": %d, "price": %d, "channel": "channel-%d", "date_time": %d}`,
			1000+i%977, 2000+i%1013, 100+i%10007, i%10, 1_700_000_000_000+int64(i))
	}
	d, err := NewDecoder(FormatJSON, 0, cs, memory.NewGoAllocator(), DefaultBatchSize)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		for _, r := range recs {
			if err := d.Decode(r); err != nil {
				b.Fatal(err)
			}
			if d.Full() {
				for _, a := range d.Finish() {
					a.Release()
				}
			}
		}
		rows += n
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
