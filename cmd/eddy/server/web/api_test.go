package web

import (
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/engine"
)

// TestAPIQuery: /api/queries and /api/queries/{name} describe a running
// view over an INSERT-fed stream: its stages with their parallelism and
// operators, the exchanges between them with their keys, and figures
// that match the rows inserted (one of them late).
func TestAPIQuery(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 2, CheckpointInterval: 10 * time.Millisecond}, `
		CREATE STREAM bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW w AS SELECT auction, window_start, COUNT(*) AS n FROM TUMBLE(bid, ts, INTERVAL '10' SECOND) GROUP BY auction, window_start;
		INSERT INTO bid VALUES (1, 5, '2024-01-01 00:00:05'), (2, 50, '2024-01-01 00:00:15');
		INSERT INTO bid VALUES (3, 500, '2024-01-01 00:00:01');
		FLUSH;`)
	base := startServer(t, eng, Config{})

	var all queriesDoc
	getJSON(t, base+"/api/queries", 200, &all)
	if len(all.Queries) != 1 || all.Time == 0 {
		t.Fatalf("%d queries at %d, want w", len(all.Queries), all.Time)
	}
	var one queryOneDoc
	getJSON(t, base+"/api/queries/w", 200, &one)
	for _, q := range []queryDoc{all.Queries[0], one.queryDoc} {
		if q.Name != "w" || q.Kind != "materialized view" || q.Status != "running" || q.Parallelism != 2 ||
			q.Started == nil || q.UptimeSeconds <= 0 || !strings.Contains(q.Query, "TUMBLE(bid") {
			t.Errorf("query: %+v", q)
		}
		// 2024-01-01 00:00:14: the watermark of the row at :15, 1 s behind.
		wm := time.Date(2024, 1, 1, 0, 0, 14, 0, time.UTC).UnixMilli()
		if tt := q.Totals; tt.RowsIn != 3 || tt.RowsOut != 2 || tt.LateRows != 1 || tt.WatermarkMs == nil || *tt.WatermarkMs != wm {
			t.Errorf("totals: %+v", tt)
		}
		if len(q.Stages) != 3 {
			t.Fatalf("%d stages, want 3 (source, aggregate, sink)", len(q.Stages))
		}
		var names [][]string
		for i, st := range q.Stages {
			var ns []string
			for _, op := range st.Operators {
				ns = append(ns, strings.Fields(op.Name)[0])
				if len(op.Instances) != st.Parallelism {
					t.Errorf("%s: %d instances in a stage of %d", op.Name, len(op.Instances), st.Parallelism)
				}
			}
			names = append(names, ns)
			if st.ID != i {
				t.Errorf("stage %d has id %d", i, st.ID)
			}
		}
		if got := strings.Join([]string{strings.Join(names[0], ","), strings.Join(names[1], ","), strings.Join(names[2], ",")}, " | "); got !=
			"Source,WindowAssign,Calc | HashAggregate | Materialize" {
			t.Errorf("operators by stage: %s", got)
		}
		if p := []int{q.Stages[0].Parallelism, q.Stages[1].Parallelism, q.Stages[2].Parallelism}; p[1] != 2 || p[2] != 1 {
			t.Errorf("parallelism by stage: %v", p)
		}
		src, agg, sink := q.Stages[0].Operators[0], q.Stages[1].Operators[0], q.Stages[2].Operators[0]
		if !src.Source || src.Figures.RowsOut != 2 || src.Figures.LateRows != 1 || src.Figures.WatermarkMs == nil || src.NodeID == 0 {
			t.Errorf("source: %+v", src)
		}
		if agg.Figures.RowsIn != 2 || agg.Figures.StateRows != 1 || agg.Figures.StateBytes <= 0 || agg.Figures.WallSeconds <= 0 ||
			agg.Instances[0].RowsIn+agg.Instances[1].RowsIn != 2 {
			t.Errorf("aggregate: %+v", agg)
		}
		if !sink.Sink || sink.NodeID != 0 || sink.Figures.RowsIn != 2 {
			t.Errorf("sink: %+v", sink)
		}
		want := []exchangeDoc{
			{From: 0, To: 1, Kind: "hash", Keys: []string{"auction", "window_start"}, Name: "Exchange hash(auction, window_start)"},
			{From: 1, To: 2, Kind: "single", Keys: []string{}, Name: "Exchange single"},
		}
		if len(q.Exchanges) != 2 {
			t.Fatalf("exchanges: %+v", q.Exchanges)
		}
		for i, ex := range q.Exchanges {
			if ex.From != want[i].From || ex.To != want[i].To || ex.Kind != want[i].Kind || ex.Name != want[i].Name ||
				strings.Join(ex.Keys, ",") != strings.Join(want[i].Keys, ",") {
				t.Errorf("exchange %d: %+v, want %+v", i, ex, want[i])
			}
		}
	}
	// Checkpoints every 10ms show up with their durations.
	waitFor(t, 10*time.Second, "a checkpoint", func() bool {
		getJSON(t, base+"/api/queries/w", 200, &one)
		return one.Checkpoints != nil && one.Checkpoints.Taken > 0 && len(one.Checkpoints.Recent) > 0
	})
	if c := one.Checkpoints; c.TotalSeconds <= 0 || c.Recent[0].Epoch == 0 || c.Recent[0].DurationSeconds <= 0 {
		t.Errorf("checkpoints: %+v", c)
	}
}

// TestAPICatalog: /api/catalog lists the objects with their columns,
// keys, event time and options.
func TestAPICatalog(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 1}, nexmarkScript+`
		CREATE TABLE item (id BIGINT, name VARCHAR, PRIMARY KEY (id));
		CREATE STREAM clicks (user_id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND);`)
	base := startServer(t, eng, Config{})
	var doc catalogDoc
	getJSON(t, base+"/api/catalog", 200, &doc)
	byName := map[string]objectDoc{}
	var order []string
	for _, o := range doc.Objects {
		byName[o.Name] = o
		order = append(order, o.Name)
	}
	if got := strings.Join(order, " "); got != "bid clicks item per_channel" {
		t.Errorf("objects %s", got)
	}
	bid, clicks, item, view := byName["bid"], byName["clicks"], byName["item"], byName["per_channel"]
	if bid.Kind != "stream" || bid.Connector != "nexmark" || bid.Options["rate"] != "5000" || bid.Options["table"] != "bid" || len(bid.Columns) < 5 {
		t.Errorf("bid: %+v", bid)
	}
	if w := clicks.Watermark; w == nil || w.Column != "ts" || w.DelaySeconds != 5 || clicks.Connector != "insert" {
		t.Errorf("clicks: %+v (watermark %+v)", clicks, w)
	}
	if item.Kind != "table" || strings.Join(item.PrimaryKey, ",") != "id" || item.Columns[1] != (columnDoc{Name: "name", Type: "VARCHAR", Nullable: true}) {
		t.Errorf("item: %+v", item)
	}
	if view.Kind != "materialized view" || strings.Join(view.DependsOn, ",") != "bid" || !strings.Contains(view.Query, "GROUP BY channel") {
		t.Errorf("per_channel: %+v", view)
	}
}

// TestAPINotFound: an unknown query, an object that runs no query and an
// unknown API path are 404s with a JSON error; other methods than GET
// are refused.
func TestAPINotFound(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 1}, `CREATE STREAM s (a BIGINT);`)
	base := startServer(t, eng, Config{})
	for path, want := range map[string]string{
		"/api/queries/nope":  "no continuous query named 'nope'",
		"/api/queries/s":     "no continuous query named 's'",
		"/api/queries/a%2Fb": "no continuous query named 'a/b'",
		"/api/nothing":       "no such API: /api/nothing",
		"/api/queries/s/x":   "no such API: /api/queries/s/x",
	} {
		var e errorDoc
		getJSON(t, base+path, 404, &e)
		if !strings.Contains(e.Error, want) {
			t.Errorf("GET %s: error %q, want %q", path, e.Error, want)
		}
	}
	if code, _, _ := get(t, base+"/nothing.js"); code != 404 {
		t.Errorf("GET /nothing.js: %d", code)
	}
	req := mustRequest(t, base+"/api/queries")
	req.Method = "DELETE"
	if code, _, _ := do(t, req); code != 405 {
		t.Errorf("DELETE /api/queries: %d, want 405", code)
	}
}

// TestPage: / is the page, with eddy's version, and its scripts and
// styles are served beside it; none refers to another site.
func TestPage(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 1}, ``)
	base := startServer(t, eng, Config{Version: "v9.9<x>"})
	code, ctype, body := get(t, base+"/")
	if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(string(body), `<span class="ver">v9.9&lt;x&gt;</span>`) {
		t.Errorf("GET /: %d %s\n%s", code, ctype, body)
	}
	for _, f := range []string{"/", "/app.js", "/graph.js", "/panels.js", "/fmt.js", "/style.css"} {
		code, ctype, body := get(t, base+f)
		if code != 200 || len(body) == 0 || !(strings.Contains(ctype, "javascript") || strings.HasPrefix(ctype, "text/css") || f == "/") {
			t.Errorf("GET %s: %d %s (%d bytes)", f, code, ctype, len(body))
		}
		// Nothing is loaded from elsewhere (the SVG namespace is a name,
		// not an address).
		if rest := strings.ReplaceAll(string(body), "http://www.w3.org/2000/svg", ""); strings.Contains(rest, "http:") || strings.Contains(rest, "https:") {
			t.Errorf("%s refers to another site", f)
		}
	}
}
