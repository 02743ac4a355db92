package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestViewOverBoundedInputResumesAtItsEnd: a view whose inputs all ended
// takes a final checkpoint — even when eddy closes right after the FLUSH
// that read them — so a restart resumes it at their end: it holds the
// same rows and its sources read nothing again.
func TestViewOverBoundedInputResumesAtItsEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := Config{DataDir: dir, Parallelism: 2, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, date_time TIMESTAMP(3),
		  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND)
		  WITH (connector = 'nexmark', table = 'bid', events = '20000');
		CREATE MATERIALIZED VIEW v AS SELECT auction % 10 AS g, COUNT(*) AS n FROM bid GROUP BY auction % 10;
		FLUSH;`)
	want := sorted(text(run(t, s, "SELECT * FROM v;")))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e = openEngine(t, cfg)
	defer func() { e.Close() }()
	s = e.NewSession(SessionOptions{})
	res := run(t, s, "SELECT * FROM v;")
	if got := sorted(text(res)); got != want {
		t.Errorf("v after the restart holds\n%s\nwant\n%s", got, want)
	}
	if !slices.ContainsFunc(res.Notices, func(n string) bool { return strings.Contains(n, "materialized view v resumed from its checkpoint 1") }) {
		t.Errorf("v did not resume from its final checkpoint: %q", res.Notices)
	}
	plan := text(run(t, s, "EXPLAIN ANALYZE v;"))
	for _, line := range strings.Split(plan, "\n") {
		if strings.Contains(line, "Source bid") && !strings.Contains(line, "rows_out=0 ") {
			t.Errorf("the resumed view read its input again: %s", line)
		}
	}
}

// TestFiniteInputFinalCheckpointKeepsResults: over nexmark streams with a
// count of events — input finite for good — the final checkpoint holds
// the view's rows but not its join's sides, aggregate groups or Top-N
// partitions: the store holds a small fraction of what the same view
// over a file of the same rows (which may grow) keeps, and after a
// restart the views hold the same rows.
func TestFiniteInputFinalCheckpointKeepsResults(t *testing.T) {
	views := []string{
		`CREATE MATERIALIZED VIEW v AS SELECT a.category, COUNT(*) AS n, MAX(b.price) AS top
		   FROM bid AS b JOIN auction AS a ON b.auction = a.id GROUP BY a.category`,
		`CREATE MATERIALIZED VIEW w AS SELECT rn, COUNT(*) AS n FROM (
		   SELECT auction, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, bidder) AS rn FROM bid) t
		   WHERE rn <= 3 GROUP BY rn`,
	}
	dir := t.TempDir()   // the files, for the second run
	var notices []string // of the first statement after the last restart
	stored := func(t *testing.T, streams string) (map[string]int64, map[string]string) {
		t.Helper()
		cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: time.Hour, FileRoot: dir}
		e := openEngine(t, cfg)
		s := e.NewSession(SessionOptions{})
		run(t, s, streams)
		for _, v := range views {
			run(t, s, v+";")
		}
		run(t, s, "FLUSH;")
		want := map[string]string{}
		for _, name := range []string{"v", "w"} {
			want[name] = sorted(text(run(t, s, "SELECT * FROM "+name+";")))
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		e = openEngine(t, cfg)
		defer func() { e.Close() }()
		s = e.NewSession(SessionOptions{})
		bytes := map[string]int64{}
		notices = nil
		for _, name := range []string{"v", "w"} {
			res := run(t, s, "SELECT * FROM "+name+";")
			notices = append(notices, res.Notices...)
			if got := sorted(text(res)); got != want[name] {
				t.Errorf("%s after the restart holds\n%s\nwant\n%s", name, got, want[name])
			}
			n, err := query(e, name).state.store.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			bytes[name] = n
		}
		return bytes, want
	}
	finite, want := stored(t, `
		CREATE STREAM auction (id BIGINT, seller BIGINT, category BIGINT) WITH (connector = 'nexmark', table = 'auction', events = '50000');
		CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT) WITH (connector = 'nexmark', table = 'bid', events = '50000');`)
	ended := func() bool {
		return slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "its input had ended for good") })
	}
	if !ended() {
		t.Errorf("the restart over finite input does not say the checkpoint kept only results: %q", notices)
	}

	// The same rows from files, which a restart reads on from their end.
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "gen"), Parallelism: 1}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	run(t, s, `
		CREATE STREAM auction (id BIGINT, seller BIGINT, category BIGINT) WITH (connector = 'nexmark', table = 'auction', events = '50000');
		CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT) WITH (connector = 'nexmark', table = 'bid', events = '50000');`)
	for _, tab := range []string{"auction", "bid"} {
		res := run(t, s, "SELECT * FROM "+tab+";")
		var b strings.Builder
		for _, row := range strings.Split(strings.TrimSpace(text(res)), "\n") {
			fields := strings.Split(row, "|")
			for i := range fields {
				fields[i] = strings.TrimSpace(fields[i])
			}
			b.WriteString(strings.Join(fields, ",") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, tab+".csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	files, fromFiles := stored(t, fmt.Sprintf(`
		CREATE STREAM auction (id BIGINT, seller BIGINT, category BIGINT) WITH (connector = 'file', path = '%s', format = 'csv');
		CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT) WITH (connector = 'file', path = '%s', format = 'csv');`,
		filepath.Join(dir, "auction.csv"), filepath.Join(dir, "bid.csv")))
	if ended() {
		t.Errorf("the restart over files says the checkpoint kept only results: %q", notices)
	}
	for name, rows := range want {
		if fromFiles[name] != rows {
			t.Errorf("%s over the files holds\n%s\nwant\n%s", name, fromFiles[name], rows)
		}
		if finite[name]*20 > files[name] {
			t.Errorf("%s: the final checkpoint over finite input stores %d bytes, over files %d: want at most 1/20", name, finite[name], files[name])
		}
		t.Logf("%s: %d bytes stored over finite input, %d over files", name, finite[name], files[name])
	}
}
