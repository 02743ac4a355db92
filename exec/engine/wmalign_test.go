package engine

import (
	"strings"
	"testing"
	"time"
)

// TestWatermarkAlignmentSetting checks that SET watermark_alignment
// refuses bad values, and that a view's job aligns its sources within
// the drift its session set — the engine's default where the session set
// none — and still does after a restart.
func TestWatermarkAlignmentSetting(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, dir)
	s := e.NewSession(SessionOptions{})
	for _, stmt := range []string{
		"SET watermark_alignment = 'soon'",
		"SET watermark_alignment = '-1s'",
		"SET watermark_alignment = '100us'",
	} {
		if _, err := execOne(t, s, stmt); err == nil || !strings.Contains(err.Error(), "watermark_alignment must be a duration such as '1s', or '0' for none") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	// A join of two streams: two sources with event time. (A self-join
	// reads its stream once, its scans merged.)
	const twoStreams = ` AS SELECT a.k, b.v FROM ev AS a JOIN ev2 AS b ON a.k = b.k
		AND a.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts;`
	run(t, s, `
		CREATE STREAM ev (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE STREAM ev2 (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE MATERIALIZED VIEW free`+twoStreams+`
		SET watermark_alignment = '1500ms';
		CREATE MATERIALIZED VIEW aligned`+twoStreams+`
		CREATE MATERIALIZED VIEW single AS SELECT k FROM ev;
		SET watermark_alignment = '0';
		CREATE MATERIALIZED VIEW off`+twoStreams)
	check := func(e *Engine, want map[string]time.Duration) {
		t.Helper()
		for name, d := range want {
			e.mu.Lock()
			q := e.queries[name]
			e.mu.Unlock()
			if q == nil || q.job == nil {
				t.Fatalf("%s: no running job", name)
			}
			if got := q.job.WatermarkAlignment(); got != d {
				t.Errorf("%s: sources aligned within %v, want %v", name, got, d)
			}
		}
	}
	// "single" reads one source: there is nothing to align.
	check(e, map[string]time.Duration{"free": 0, "aligned": 1500 * time.Millisecond, "single": 0, "off": 0})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopened with an engine default: views keep what their session set.
	e = openEngine(t, Config{DataDir: dir + "/data", FileRoot: dir, Parallelism: 1, WatermarkAlignment: time.Second})
	defer e.Close()
	check(e, map[string]time.Duration{"free": time.Second, "aligned": 1500 * time.Millisecond, "off": 0})
}
