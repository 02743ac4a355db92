package engine

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var (
	joinBenchLarge = flag.Int("joinbench.large", 1_000_000, "bids on the large side of BenchmarkJoinDistribution")
	joinBenchSmall = flag.String("joinbench.small", "10000,25000,40000,55000,70000,85000,100000,150000,200000,400000",
		"table sizes BenchmarkJoinDistribution sweeps")
)

// BenchmarkJoinDistribution sweeps the size of a table joined with a
// parallel stream of bids (a lookup join at parallelism 2) and runs each
// size with the join hash-partitioned, with the table broadcast, and as
// the optimizer chooses ("auto"), in one run. Each iteration creates the
// tables and a blackhole sink over the join and waits for it to finish
// (FLUSH over bounded inputs). The measured crossover — where broadcast
// stops being faster — should be within 20% of the optimizer's switch
// point. Run it as
//
//	go test ./exec/engine -run XXX -bench BenchmarkJoinDistribution -count 5 -cpu 2
func BenchmarkJoinDistribution(b *testing.B) {
	dir := b.TempDir()
	var sizes []int
	for _, s := range strings.Split(*joinBenchSmall, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			b.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	for _, small := range sizes {
		path := filepath.Join(dir, fmt.Sprintf("t%d.csv", small))
		if err := writeTableCSV(path, small); err != nil {
			b.Fatal(err)
		}
		for _, dist := range []string{"hash", "broadcast", "auto"} {
			b.Run(fmt.Sprintf("small=%d/%s", small, dist), func(b *testing.B) {
				chosen := ""
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					e := openEngine(b, Config{Parallelism: 2, FileRoot: dir})
					s := e.NewSession(SessionOptions{})
					run(b, s, "SET join_distribution = "+dist)
					run(b, s, fmt.Sprintf("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR) WITH (connector = 'file', path = 't%d.csv', format = 'csv', header = 'true')", small))
					run(b, s, fmt.Sprintf("CREATE STREAM bid (bidder BIGINT, price BIGINT) WITH (connector = 'nexmark', table = 'bid', events = '%d')", *joinBenchLarge*50/46))
					run(b, s, "ANALYZE t") // the optimizer learns the table's size
					query := "SELECT b.price, t.v FROM bid b JOIN t ON b.bidder = t.id"
					if i == 0 {
						plan := run(b, s, "EXPLAIN "+query)
						for _, row := range plan.Rows {
							if strings.Contains(row[0].S, "Exchange broadcast") {
								chosen = "broadcast"
							}
						}
						if chosen == "" {
							chosen = "hash"
						}
					}
					b.StartTimer()
					run(b, s, "CREATE SINK out AS "+query+" WITH (connector = 'blackhole')")
					run(b, s, "FLUSH")
					b.StopTimer()
					if err := e.Close(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(*joinBenchLarge+small)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				if dist == "auto" {
					b.Logf("the optimizer chose %s for a %d-row table", chosen, small)
				}
			})
		}
	}
}

// writeTableCSV writes a table of n rows (id, v) with ids 0..n-1, shifted
// so that the nexmark bidders (ids from 1000 up) find their rows.
func writeTableCSV(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id,v")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%d,name-%d\n", 1000+i, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
