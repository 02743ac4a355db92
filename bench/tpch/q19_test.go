package tpch_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/bench/tpch"
)

// csvData writes part.csv and lineitem.csv into tempDir once per process.
var csvData = sync.OnceValue(func() error {
	ts, err := tpch.Generate(*scaleFactor)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.Name == "part" || t.Name == "lineitem" {
			if err := tpch.WriteCSV(tempDir, t); err != nil {
				return err
			}
		}
	}
	return nil
})

// runQ19 opens an engine over the CSV files, creates the streams, and runs
// query as a materialized view until it has read everything; it returns
// the view's rows and how long the view took.
func runQ19(tb testing.TB, query string) (string, time.Duration) {
	tb.Helper()
	part, lineitem := table(tb, "part"), table(tb, "lineitem")
	if err := csvData(); err != nil {
		tb.Fatal(err)
	}
	d := openEddy(tb, tempDir, 1)
	defer d.close()
	d.must(tb, fmt.Sprintf(`CREATE STREAM part (%s) WITH (connector = 'file', path = 'part.csv', header = 'true');
		CREATE STREAM lineitem (%s) WITH (connector = 'file', path = 'lineitem.csv', header = 'true');`,
		part.ColumnList(), lineitem.ColumnList()))
	start := time.Now()
	d.must(tb, "CREATE MATERIALIZED VIEW q AS "+query+"; FLUSH;")
	took := time.Since(start)
	res := d.must(tb, "SELECT ROUND(revenue, 2) FROM q")
	return fmt.Sprint(res.Rows), took
}

// TestQ19 checks that Q19 as written gives the answer of its hand-factored
// form (and that it has one: some line items qualify).
func TestQ19(t *testing.T) {
	got, _ := runQ19(t, tpch.Q19)
	want, _ := runQ19(t, tpch.Q19Factored)
	if got != want || got == "[[NULL]]" || got == "[]" {
		t.Fatalf("Q19 gives %s, its hand-factored form %s", got, want)
	}
}

// BenchmarkQ19 times Q19 as a materialized view over the generated data
// (from its creation until it has read every row), against its
// hand-factored form in the same run:
//
//	go test -run '^$' -bench BenchmarkQ19 -count 5 ./bench/tpch
func BenchmarkQ19(b *testing.B) {
	for _, q := range []struct{ name, text string }{{"as-written", tpch.Q19}, {"hand-factored", tpch.Q19Factored}} {
		b.Run(q.name, func(b *testing.B) {
			for range b.N {
				_, took := runQ19(b, q.text)
				b.ReportMetric(took.Seconds(), "view-s")
			}
		})
	}
}
