package engine

import (
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/sql"
)

// TestStateLayoutKeepsAcrossParallelism: the state layout of a query's
// dataflow (which table each operator's state and each source's
// positions are in, and what the operator is) is the same at parallelism
// 1 to 4, although the exchanges, and so the stages, differ: so each
// query can be rescaled, and a checkpoint of one parallelism resumes at
// another. The queries cover every stateful operator family.
func TestStateLayoutKeepsAcrossParallelism(t *testing.T) {
	e, s, _ := checkpointedEngine(t, 1)
	run(t, s, rescaleSchema+`
		CREATE TABLE person (id BIGINT, name VARCHAR, PRIMARY KEY (id));
		CREATE STREAM t2 (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
			WITH (dedup_key = 'k', dedup_window = '1m');`)
	for _, q := range append(rescaleQueries[:len(rescaleQueries):len(rescaleQueries)], []struct{ name, query string }{
		{"two-phase", `SELECT auction, COUNT(*) AS n, MAX(price) AS m FROM bid GROUP BY auction`},
		{"global", `SELECT COUNT(*) AS n, SUM(price) AS s FROM bid`},
		{"distinct", `SELECT DISTINCT auction FROM bid`},
		{"lookup", `SELECT b.auction, p.name FROM bid b JOIN person p ON b.auction = p.id`},
		{"table", `SELECT name, COUNT(*) AS n FROM person GROUP BY name`},
		{"interval", `SELECT b.auction, c.price FROM bid b JOIN bid c ON b.auction = c.auction
			AND c.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts + INTERVAL '1' SECOND`},
		{"dedup", `SELECT auction, price FROM (SELECT auction, price, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY ts) AS rn FROM bid) WHERE rn = 1`},
		{"session", `SELECT auction, window_start, COUNT(*) AS n FROM SESSION(bid, ts, INTERVAL '5' SECOND) GROUP BY auction, window_start`},
		{"over", `SELECT auction, price, SUM(price) OVER (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM bid`},
		{"temporal", `SELECT auction, price FROM bid WHERE ts > NOW() - INTERVAL '1' HOUR`},
		{"dedup source", `SELECT k, COUNT(*) AS n FROM t2 GROUP BY k`},
		{"union", `SELECT auction, COUNT(*) AS n FROM (SELECT auction FROM bid UNION ALL SELECT id AS auction FROM auction) u GROUP BY auction`},
	}...) {
		t.Run(q.name, func(t *testing.T) {
			stmt := mustParse(t, "CREATE MATERIALIZED VIEW x AS "+q.query).(*sql.CreateView)
			var first []string
			for p := 1; p <= 4; p++ {
				ps, _ := e.storedSettings(&catalog.Object{})
				ps.parallelism = p
				obj := &catalog.Object{Name: "x", Kind: catalog.View, Query: stmt.Query.Text}
				cq, err := e.planContinuous(obj, stmt.Query, stmt.Source(), stmt.Start, ps)
				if err != nil {
					t.Fatal(err)
				}
				qg, err := e.queryGraph(obj, cq, true, viewKeep{})
				if err != nil {
					t.Fatal(err)
				}
				layout := stateLayout(qg.graph)
				if p == 1 {
					first = layout
					continue
				}
				if why := layoutChange(first, layout); why != "" {
					t.Errorf("at parallelism %d: %s\nlayout at 1:\n%s\nat %d:\n%s", p, why,
						strings.Join(first, "\n"), p, strings.Join(layout, "\n"))
				}
			}
		})
	}
}

// TestLayoutChange: what a refused rescale says about two state layouts.
func TestLayoutChange(t *testing.T) {
	agg := "state/r HashAggregate group=[k] aggs=[COUNT(*)]"
	for _, c := range []struct {
		was, now []string
		want     string
	}{
		{[]string{agg, "state/sink Materialize v"}, []string{agg, "state/sink Materialize v"}, ""},
		{[]string{"source/r.0 Source s kind=nexmark parallelism=2", agg}, []string{"source/r.0 Source s kind=nexmark parallelism=3", agg},
			"its source (Source s kind=nexmark) is read in parallel splits, one per instance, and a split's position does not carry over to another parallelism"},
		{[]string{"state/r HashJoin Inner keys=[a = b]"}, []string{"state/r HashJoin Inner keys=[a = b] broadcast parallelism=2"},
			"its join (HashJoin Inner keys=[a = b]) broadcasts one side at one parallelism and not at the other, or to another number of replicas, which restore only at the parallelism they were written at"},
		{[]string{agg}, []string{"state/r HashAggregate group=[k] aggs=[SUM(partial COUNT(*))]"},
			"its plan keeps other state there: HashAggregate group=[k] aggs=[SUM(partial COUNT(*))] instead of HashAggregate group=[k] aggs=[COUNT(*)]"},
		{[]string{agg, "state/r.0 LocalAgg"}, []string{agg}, "its plan there keeps no state for LocalAgg"},
		{[]string{agg}, []string{agg, "state/r.0 LocalAgg"}, "its plan there keeps state its checkpoints have none of, for LocalAgg"},
	} {
		if got := layoutChange(c.was, c.now); got != c.want {
			t.Errorf("layoutChange(%q, %q)\n got %q\nwant %q", c.was, c.now, got, c.want)
		}
	}
}
