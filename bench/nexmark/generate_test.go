package nexmark

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

func TestGenerateLists(t *testing.T) {
	for _, tc := range []struct {
		scans map[string]int
		want  map[string][]string
	}{
		{map[string]int{"bid": 1}, map[string][]string{"bid": {"bid", "person", "auction"}}},
		{map[string]int{"person": 1, "auction": 1}, map[string][]string{"person": {"person", "bid"}, "auction": {"auction"}}},
		{map[string]int{"auction": 1, "bid": 1}, map[string][]string{"auction": {"auction", "person"}, "bid": {"bid"}}},
		// The stream scanned once carries the rest, not the one scanned twice.
		{map[string]int{"auction": 2, "bid": 1}, map[string][]string{"auction": {"auction"}, "bid": {"bid", "person"}}},
		{map[string]int{"bid": 2}, map[string][]string{"bid": {"bid", "person", "auction"}}},
		{map[string]int{"person": 1, "auction": 1, "bid": 1}, map[string][]string{"person": {"person"}, "auction": {"auction"}, "bid": {"bid"}}},
		{map[string]int{}, nil},
	} {
		if got := generateLists(tc.scans); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("generateLists(%v) = %v, want %v", tc.scans, got, tc.want)
		}
	}
}

// TestCountScans checks the scans counted for built-in queries: q7 reads
// bid in two places with one scan (the optimizer merges them), q13 a
// file-fed table besides bid, the baseline all three.
func TestCountScans(t *testing.T) {
	ctx := context.Background()
	c := Config{Events: 1_000_000, Parallelism: 2}
	for _, tc := range []struct {
		query string
		want  map[string]int
	}{
		{"q0", map[string]int{"bid": 1}},
		{"q3", map[string]int{"person": 1, "auction": 1}},
		{"q7", map[string]int{"bid": 1}},
		{"q13", map[string]int{"bid": 1}},
		{BaselineName, map[string]int{"person": 1, "auction": 1, "bid": 1}},
	} {
		q := Baseline()
		if tc.query != BaselineName {
			qs, err := LoadQueries("", tc.query)
			if err != nil {
				t.Fatal(err)
			}
			q = qs[0]
		}
		stmts, err := parseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := countScans(ctx, c, stmts)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s scans %v, want %v", tc.query, got, tc.want)
		}
	}
}

// TestGenerateSameResults runs queries as materialized views over the
// streams of --generate read and of --generate all, and checks that their
// results are the same rows: generating the tables a query does not read
// changes no event it reads. q3 reads two streams, q7 one stream in two places.
func TestGenerateSameResults(t *testing.T) {
	ctx := context.Background()
	read := Config{Events: 30_000, Parallelism: 2}
	all := read
	all.Generate = GenerateAll
	for _, tc := range []struct{ query, option string }{
		{"q3", "table = 'person', events = '30000', generate = 'person, bid'"},
		{"q7", "table = 'bid', events = '30000', generate = 'bid, person, auction'"},
		{"q1", "table = 'bid', events = '30000', generate = 'bid, person, auction'"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			qs, err := LoadQueries("", tc.query)
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := parseQuery(qs[0])
			if err != nil {
				t.Fatal(err)
			}
			ddlAll, err := streamsFor(ctx, all, stmts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(ddlAll, func(s string) bool { return strings.Contains(s, tc.option) }) {
				t.Errorf("no stream with %s in\n%s", tc.option, strings.Join(ddlAll, "\n"))
			}
			// The engine hands the option to the connector, which checks it.
			bad := strings.Replace(StreamDDL(read)[0], "connector = 'nexmark'", "connector = 'nexmark', generate = 'bids'", 1)
			if st, err := sql.ParseOne(bad, sql.Pos{Line: 1, Col: 1}); err != nil {
				t.Fatal(err)
			} else if err := createIn(ctx, st); err == nil || !strings.Contains(err.Error(), "option generate") {
				t.Errorf("generate = 'bids': %v, want the connector's option error", err)
			}
			want := viewRows(t, ctx, StreamDDL(read), stmts)
			got := viewRows(t, ctx, ddlAll, stmts)
			if len(want) == 0 {
				t.Fatalf("%s has no rows", tc.query)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d rows under --generate all, %d under read, or other rows", tc.query, len(got), len(want))
			}
		})
	}
}

// viewRows runs a query's statements over the streams ddl creates, with
// its sink made a materialized view, and returns the view's rows, sorted,
// once the bounded streams are read to their end.
func viewRows(t *testing.T, ctx context.Context, ddl []string, stmts []sql.Stmt) []string {
	t.Helper()
	eng, err := engine.Open(ctx, engine.Config{FileRoot: t.TempDir(), Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess := eng.NewSession(engine.SessionOptions{})
	run := func(text string) *engine.Result {
		t.Helper()
		st, err := sql.ParseOne(text, sql.Pos{Line: 1, Col: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := sess.Execute(ctx, st)
		if err != nil {
			t.Fatalf("%.60s...: %v", text, err)
		}
		return res
	}
	for _, d := range ddl {
		run(d)
	}
	view := ""
	for _, st := range stmts {
		cs, ok := st.(*sql.CreateSink)
		if !ok || cs.Query == nil {
			t.Fatalf("want only CREATE SINK ... AS SELECT, got %.60s", st.Source().Text())
		}
		view = cs.Name.Name
		run("CREATE MATERIALIZED VIEW " + view + " AS " + cs.Query.Text + ";")
	}
	run("FLUSH;")
	res := run("SELECT * FROM " + view + ";")
	rows := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = fmt.Sprint(r)
	}
	slices.Sort(rows)
	return rows
}

// createIn runs a statement in a new in-memory engine.
func createIn(ctx context.Context, st sql.Stmt) error {
	eng, err := engine.Open(ctx, engine.Config{})
	if err != nil {
		return err
	}
	defer eng.Close()
	_, err = eng.NewSession(engine.SessionOptions{}).Execute(ctx, st)
	return err
}
