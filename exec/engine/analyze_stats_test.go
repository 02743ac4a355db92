package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
)

// insertRows returns INSERTs of n rows (id, category, note) into name:
// ids from lo, seven categories, and a NULL note in every fourth row.
func insertRows(name string, lo, n int) string {
	var b strings.Builder
	for start := lo; start < lo+n; start += 1000 {
		fmt.Fprintf(&b, "INSERT INTO %s VALUES ", name)
		for i := start; i < min(start+1000, lo+n); i++ {
			if i > start {
				b.WriteString(", ")
			}
			note := fmt.Sprintf("'note %d'", i%500)
			if i%4 == 0 {
				note = "NULL"
			}
			fmt.Fprintf(&b, "(%d, 'c%d', %s)", i, i%7, note)
		}
		b.WriteString(";\n")
	}
	return b.String()
}

func TestAnalyzeStatisticsSurviveARestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, err := Open(ctx, Config{DataDir: dir, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewSession(SessionOptions{})
	run(t, s, "CREATE STREAM ev (id BIGINT NOT NULL, category VARCHAR NOT NULL, note VARCHAR);")
	run(t, s, insertRows("ev", 0, 20000))
	res := run(t, s, "ANALYZE ev;")
	if got := text(res); got != "ev | 20000 | 23.961\n" {
		t.Fatalf("ANALYZE returned %q", got)
	}
	st, ok := e.Catalog().Stats("ev")
	if !ok || st.Rows != 20000 || st.Source != catalog.StatsAnalyze || st.RowsPerSec != 0 {
		t.Fatalf("stats: %+v", st)
	}
	// 20,000 ids are past the exact range: an estimate within a few
	// percent. Seven categories and 500 notes are counted exactly.
	if d := st.Columns["id"].Distinct; math.Abs(d-20000) > 0.05*20000 {
		t.Errorf("id distinct %v, want about 20000", d)
	}
	if c := st.Columns["category"]; c.Distinct != 7 || c.NullFrac != 0 {
		t.Errorf("category: %+v", c)
	}
	if c := st.Columns["note"]; c.Distinct != 375 || c.NullFrac != 0.25 {
		t.Errorf("note: %+v (notes of ids divisible by 4 are NULL)", c)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened on the same directory, the figures are the same, and new
	// rows merged through their sketches extend them.
	e2, err := Open(ctx, Config{DataDir: dir, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	again, ok := e2.Catalog().Stats("ev")
	if !ok || again.Rows != st.Rows || again.RowBytes != st.RowBytes || !again.Updated.Equal(st.Updated) ||
		len(again.Columns) != 3 || again.Columns["id"].Distinct != st.Columns["id"].Distinct {
		t.Fatalf("after restart: %+v, before: %+v", again, st)
	}
	s2 := e2.NewSession(SessionOptions{})
	if got := text(run(t, s2, "DESCRIBE ev;")); got != "id | BIGINT | NO |  | "+
		fmt.Sprint(int64(math.Round(st.Columns["id"].Distinct)))+" | 0\n"+
		"category | VARCHAR | NO |  | 7 | 0\nnote | VARCHAR | YES |  | 375 | 0.25\n" {
		t.Fatalf("DESCRIBE after restart:\n%s", got)
	}
	// A second ANALYZE after more rows replaces the figures.
	run(t, s2, insertRows("ev", 20000, 20000))
	run(t, s2, "ANALYZE ev;")
	st, _ = e2.Catalog().Stats("ev")
	if d := st.Columns["id"].Distinct; st.Rows != 40000 || math.Abs(d-40000) > 0.05*40000 || st.Columns["category"].Distinct != 7 {
		t.Fatalf("after more rows: %+v", st)
	}
}

func TestAnalyzeRefusesViewsAndSinks(t *testing.T) {
	s := newSession(t, Config{Parallelism: 1})
	run(t, s, `CREATE STREAM bid (auction BIGINT, price BIGINT);
		CREATE SINK nothing AS SELECT auction FROM bid WITH (connector = 'blackhole');`)
	_, err := execOne(t, s, "ANALYZE nothing;")
	if err == nil || !strings.Contains(err.Error(), "ANALYZE needs a stream or table: 'nothing' is a sink") {
		t.Fatalf("ANALYZE of a sink: %v", err)
	}
	if _, ok := s.eng.Catalog().Stats("nothing"); ok {
		t.Fatal("a sink got statistics")
	}
}
