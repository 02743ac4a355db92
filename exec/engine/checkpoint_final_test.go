package engine

import (
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
