package engine

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog"
)

// values returns n rows (i, 'p<i%3>') from lo, for clicks.
func values(lo, n int) string {
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf("(%d, 'p%d')", lo+i, (lo+i)%3)
	}
	return strings.Join(rows, ", ")
}

func TestObservedStatisticsFollowRunningQueries(t *testing.T) {
	base, err := filepath.Abs(filepath.Join("..", "..", "testdata", "slt"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), Config{Parallelism: 2, FileRoot: base})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Drive the sampling by hand, at chosen times.
	e.stopStatsObserver()
	e.stopStatsObserver() // idempotent
	o := newStatsObserver(e)
	s := e.NewSession(SessionOptions{})
	run(t, s, `
		CREATE STREAM clicks (user_id BIGINT, page VARCHAR);
		CREATE TABLE account (id BIGINT, owner VARCHAR, PRIMARY KEY (id));
		CREATE STREAM people (id BIGINT, name VARCHAR, city VARCHAR, joined TIMESTAMP(3))
		  WITH (connector = 'file', path = 'data/people.csv', format = 'csv', header = 'true');
		CREATE MATERIALIZED VIEW per_page AS SELECT page, COUNT(*) AS n FROM clicks GROUP BY page;
		CREATE MATERIALIZED VIEW big AS SELECT user_id FROM clicks WHERE user_id > 1000;
		CREATE MATERIALIZED VIEW owners AS SELECT owner, COUNT(*) AS n FROM account GROUP BY owner;
		CREATE MATERIALIZED VIEW cities AS SELECT city, COUNT(*) AS n FROM people GROUP BY city;`)
	run(t, s, "INSERT INTO clicks VALUES "+values(0, 100)+"; INSERT INTO account VALUES (1, 'ann'), (2, 'bob'); FLUSH;")

	// The first sample sets a baseline: a stream's rows are known, its
	// rate is not yet.
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := o.observe(t0); err != nil {
		t.Fatal(err)
	}
	st, ok := e.Catalog().Stats("clicks")
	if !ok || st.Rows != 100 || st.RowsPerSec != 0 || st.Source != catalog.StatsObserved || !st.Updated.Equal(t0) {
		t.Fatalf("after the first sample: %+v %v", st, ok)
	}
	if st, ok := e.Catalog().Stats("account"); ok {
		t.Fatalf("a table's reads are upserts: no row count from them, and no rate yet: %+v", st)
	}

	// ANALYZE adds column figures; later samples keep them.
	run(t, s, "ANALYZE clicks;")
	run(t, s, "INSERT INTO clicks VALUES "+values(100, 50)+"; INSERT INTO account VALUES (1, 'cid'); FLUSH;")
	if err := o.observe(t0.Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	st, _ = e.Catalog().Stats("clicks")
	if st.Rows != 150 || st.RowsPerSec != 10 || st.Source != catalog.StatsObserved || st.Columns["page"].Distinct != 3 {
		t.Fatalf("after 50 rows in 5 s: %+v", st)
	}
	acc, ok := e.Catalog().Stats("account")
	if !ok || acc.RowsPerSec != 0.2 || acc.Rows != 0 {
		t.Fatalf("account after one upsert in 5 s: %+v %v", acc, ok)
	}

	// A new sample moves the rate halfway.
	run(t, s, "INSERT INTO clicks VALUES "+values(150, 100)+"; FLUSH;")
	if err := o.observe(t0.Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	st, _ = e.Catalog().Stats("clicks")
	if st.Rows != 250 || math.Abs(st.RowsPerSec-15) > 1e-9 {
		t.Fatalf("after 100 more rows in 5 s: %+v", st)
	}

	// A bounded file is read once: it is not observed.
	if st, ok := e.Catalog().Stats("people"); ok {
		t.Fatalf("a bounded source got observed statistics: %+v", st)
	}

	// Dropped queries' samples go, and so do a dropped object's figures.
	run(t, s, "DROP MATERIALIZED VIEW per_page; DROP MATERIALIZED VIEW big; DROP STREAM clicks;")
	if err := o.observe(t0.Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Catalog().Stats("clicks"); ok {
		t.Fatal("statistics of a dropped stream")
	}
	if len(o.last) != 1 { // owners' read of account
		t.Fatalf("samples kept: %v", o.last)
	}
}

func TestRateChanged(t *testing.T) {
	for _, c := range []struct {
		old, cur float64
		want     bool
	}{{0, 0, false}, {0, 1, true}, {1, 0, true}, {100, 104, false}, {100, 106, true}, {100, 94, true}} {
		if got := rateChanged(c.old, c.cur); got != c.want {
			t.Errorf("rateChanged(%v, %v) = %v", c.old, c.cur, got)
		}
	}
}
