package tpch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/bench/tpch"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// data generates SF 0.01's part and line items once per process.
var data = sync.OnceValues(func() (string, error) {
	dir, err := mkTemp()
	if err != nil {
		return "", err
	}
	return dir, tpch.Generate(dir, tpch.SF001)
})

// run opens an engine over the data in dir, creates the streams, and
// runs query as a materialized view until it has read everything; it
// returns the view's rows and how long the view took.
func run(tb testing.TB, dir, query string) (string, time.Duration) {
	tb.Helper()
	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{DataDir: filepath.Join(tb.TempDir(), "data"), FileRoot: dir, Parallelism: 1})
	if err != nil {
		tb.Fatal(err)
	}
	defer e.Close()
	s := e.NewSession(engine.SessionOptions{})
	exec := func(text string) *engine.Result {
		stmts, err := sql.Parse(text)
		if err != nil {
			tb.Fatal(err)
		}
		var last *engine.Result
		for _, st := range stmts {
			if last, err = s.Execute(ctx, st); err != nil {
				tb.Fatalf("%s: %v", text, err)
			}
		}
		return last
	}
	exec(fmt.Sprintf(`CREATE STREAM part (%s) WITH (connector = 'file', path = 'part.csv', header = 'true');
		CREATE STREAM lineitem (%s) WITH (connector = 'file', path = 'lineitem.csv', header = 'true');`,
		tpch.PartColumns, tpch.LineItemColumns))
	start := time.Now()
	exec("CREATE MATERIALIZED VIEW q AS " + query + "; FLUSH;")
	took := time.Since(start)
	res := exec("SELECT ROUND(revenue, 2) FROM q")
	return fmt.Sprint(res.Rows), took
}

// TestQ19 checks that Q19 as written gives the answer of its hand-factored
// form (and that it has one: some line items qualify).
func TestQ19(t *testing.T) {
	if testing.Short() {
		t.Skip("generating TPC-H data takes about 10 s")
	}
	dir, err := data()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := run(t, dir, tpch.Q19)
	want, _ := run(t, dir, tpch.Q19Factored)
	if got != want || got == "[[NULL]]" || got == "[]" {
		t.Fatalf("Q19 gives %s, its hand-factored form %s", got, want)
	}
}

// BenchmarkQ19 times Q19 as a materialized view over SF 0.01 (from its
// creation until it has read every row), against its hand-factored form
// in the same run:
//
//	go test -run '^$' -bench BenchmarkQ19 -count 5 ./bench/tpch
func BenchmarkQ19(b *testing.B) {
	dir, err := data()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, text string }{{"as-written", tpch.Q19}, {"hand-factored", tpch.Q19Factored}} {
		b.Run(q.name, func(b *testing.B) {
			for range b.N {
				_, took := run(b, dir, q.text)
				b.ReportMetric(took.Seconds(), "view-s")
			}
		})
	}
}
