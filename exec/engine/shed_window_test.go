package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/planner"
	"github.com/eddysql/eddy/sql"
)

// windowCounts reads a view of (window_start, c, s) rows into c and s by
// window.
func windowCounts(t *testing.T, s *Session, view string) map[string][2]int64 {
	t.Helper()
	out := map[string][2]int64{}
	for _, line := range strings.Split(strings.TrimSpace(text(run(t, s, "SELECT window_start, c, s FROM "+view))), "\n") {
		f := strings.Split(line, " | ")
		if len(f) != 3 {
			t.Fatalf("%s: row %q", view, line)
		}
		c, err1 := strconv.ParseInt(f[1], 10, 64)
		sum, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: row %q", view, line)
		}
		out[f[0]] = [2]int64{c, sum}
	}
	return out
}

// TestViewShedsWindows overloads a view of TUMBLE windows as
// TestViewShedsLoad does, with shed = 'window': it drops some windows, and
// every window it emits has the COUNT and SUM that a view without shedding
// computes for it; the rows and windows counted as shed are exactly those
// of the windows missing, in SHOW QUERIES and EXPLAIN ANALYZE.
func TestViewShedsWindows(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	// The regular expression in an always-true filter keeps the view
	// behind its input however fast the machine (as in TestViewShedsLoad).
	const query = "SELECT window_start, COUNT(*) AS c, SUM(price) AS s FROM TUMBLE(bid, date_time, INTERVAL '1' SECOND) " +
		"WHERE COALESCE(LENGTH(REGEXP_EXTRACT(extra, '(.*)([xyz])(.*)', 3)), 0) >= 0 GROUP BY window_start"
	run(t, s, `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '3000000', rate = '100000000');
		CREATE MATERIALIZED VIEW w WITH (max_latency = '100ms', shed = 'window') AS `+query+`;
		FLUSH;`)
	row := strings.Split(showRow(t, s, "QUERIES", "w"), " | ")
	if len(row) < 15 {
		t.Fatalf("SHOW QUERIES row %q: want at least 15 columns", row)
	}
	read, _ := strconv.ParseInt(row[4], 10, 64)
	shedRows, _ := strconv.ParseInt(row[12], 10, 64)
	shedWindows, _ := strconv.ParseInt(row[14], 10, 64)
	plan := text(run(t, s, "EXPLAIN ANALYZE w"))
	// The reference: the same query over the same events, shedding none,
	// run once the shedding one is done.
	run(t, s, "CREATE MATERIALIZED VIEW ref AS "+query+"; FLUSH;")
	got, want := windowCounts(t, s, "w"), windowCounts(t, s, "ref")
	var total, missingRows, missing int64
	for w, r := range want {
		total += r[0]
		g, ok := got[w]
		switch {
		case !ok:
			missing++
			missingRows += r[0]
		case g != r:
			t.Errorf("window %s: COUNT, SUM = %v, want %v", w, g, r)
		}
	}
	for w := range got {
		if _, ok := want[w]; !ok {
			t.Errorf("window %s is in the view that sheds, not in the reference", w)
		}
	}
	t.Logf("read %d rows in %d windows; dropped %d windows, %d rows", read, len(want), missing, missingRows)
	if missing == 0 || missing == int64(len(want)) {
		t.Fatalf("%d of %d windows dropped: want some, not all", missing, len(want))
	}
	if read != total || shedRows != missingRows || shedWindows != missing {
		t.Errorf("SHOW QUERIES: read %d rows, shed %d rows in %d windows; want %d read, %d rows in %d windows shed",
			read, shedRows, shedWindows, total, missingRows, missing)
	}
	for _, want := range []string{fmt.Sprintf("shed %d of %d rows read", shedRows, read), fmt.Sprintf("in %d whole windows", shedWindows),
		fmt.Sprintf("shed_rows=%d shed_windows=%d", shedRows, shedWindows)} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN ANALYZE lacks %q:\n%s", want, plan)
		}
	}
	if got := text(run(t, s, "SHOW CREATE w")); !strings.Contains(got, "WITH (max_latency = '100ms', shed = 'window')") {
		t.Errorf("SHOW CREATE w = %q", got)
	}
}

// TestShedWindowRefusals checks that shed = 'window' is refused, at the
// option's value, for the queries where dropping whole windows at the
// source would not leave every emitted window exact.
func TestShedWindowRefusals(t *testing.T) {
	s := newSession(t, Config{Parallelism: 2})
	run(t, s, `CREATE STREAM s (a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
		CREATE STREAM r (b BIGINT, ts TIMESTAMP(3));
		CREATE TABLE dim (a BIGINT, name VARCHAR, PRIMARY KEY (a));`)
	const opt = "WITH (max_latency = '1s', shed = 'window')"
	for _, c := range []struct {
		query, want string
		notYet      bool
	}{
		{"SELECT a FROM s", "shed = 'window' needs a query that aggregates TUMBLE windows of one stream, grouped by window_start or window_end; its result comes from Source", false},
		{"SELECT a, COUNT(*) AS n FROM s GROUP BY a", "found Source between the aggregation and its window", false},
		{"SELECT window_start, COUNT(*) AS n FROM HOP(s, ts, INTERVAL '1' SECOND, INTERVAL '5' SECOND) GROUP BY window_start",
			"not supported yet: shed = 'window' over HOP windows", true},
		{"SELECT window_start, COUNT(*) AS n FROM CUMULATE(s, ts, INTERVAL '1' SECOND, INTERVAL '5' SECOND) GROUP BY window_start",
			"not supported yet: shed = 'window' over CUMULATE windows", true},
		{"SELECT a, window_start, COUNT(*) AS n FROM SESSION(s, ts, INTERVAL '1' SECOND) GROUP BY a, window_start",
			"not supported yet: shed = 'window' over SESSION windows", true},
		{"SELECT window_start, COUNT(*) AS n FROM TUMBLE(s, ts, INTERVAL '1' SECOND) JOIN dim ON s.a = dim.a GROUP BY window_start",
			"this one reads 2 inputs", false},
		{"SELECT a, COUNT(*) AS n FROM TUMBLE(s, ts, INTERVAL '1' SECOND) GROUP BY a", "this one does not group by the window", false},
		{"SELECT window_start, n FROM (SELECT window_start, COUNT(*) AS n FROM TUMBLE(s, ts, INTERVAL '1' SECOND) GROUP BY window_start) AS x ORDER BY n DESC LIMIT 3",
			"its result comes from", false},
	} {
		for _, stmt := range []string{
			"CREATE MATERIALIZED VIEW v " + opt + " AS " + c.query,
			"EXPLAIN CREATE MATERIALIZED VIEW v " + opt + " AS " + c.query,
			"CREATE SINK k AS " + c.query + " " + strings.TrimSuffix(opt, ")") + ", connector = 'blackhole')",
		} {
			_, err := execOne(t, s, stmt)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s:\n%v, want %q", stmt, err, c.want)
				continue
			}
			var pe sql.PosError
			at := strings.Index(stmt, "'window'")
			if !errors.As(err, &pe) || pe.Position().Line != 1 || pe.Position().Col != at+1 {
				t.Errorf("%s:\n%v: want it at 1:%d, the option's value", stmt, err, at+1)
			}
			var ns *planner.NotSupportedError
			if errors.As(err, &ns) != c.notYet {
				t.Errorf("%s:\n%v (%T): not supported yet is %v, want %v", stmt, err, err, !c.notYet, c.notYet)
			}
		}
	}
	// Accepted: a filter, a projection and HAVING on the way; grouped by
	// window_end and another key; a sink.
	run(t, s, `CREATE MATERIALIZED VIEW ok1 `+opt+` AS SELECT a, window_end, COUNT(*) AS n FROM TUMBLE(s, ts, INTERVAL '1' SECOND) WHERE a > 0 GROUP BY a, window_end HAVING COUNT(*) > 1;
		CREATE SINK ok2 AS SELECT window_start, SUM(a) AS total FROM TUMBLE(s, ts, INTERVAL '10' SECOND) GROUP BY window_start WITH (connector = 'blackhole', max_latency = '1s', shed = 'window');`)
}

// TestViewShedsWindowsAcrossRestart overloads a checkpointed view that
// sheds whole windows, closes the engine in the middle of its input (a
// last checkpoint) and opens it again: the view resumes from the
// checkpoint, and the windows it was in the middle of meet the fate they
// met before, so every window it emits still equals the reference's.
func TestViewShedsWindowsAcrossRestart(t *testing.T) {
	cfg := Config{DataDir: filepath.Join(t.TempDir(), "data"), Parallelism: 2, CheckpointInterval: time.Hour}
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	// The always-true filter keeps the view behind its input however fast
	// the machine, as in TestViewShedsWindows.
	const query = "SELECT window_start, COUNT(*) AS c, SUM(price) AS s FROM TUMBLE(bid, date_time, INTERVAL '1' SECOND) " +
		"WHERE COALESCE(LENGTH(REGEXP_EXTRACT(extra, '(.*)([xyz])(.*)', 3)), 0) >= 0 GROUP BY window_start"
	run(t, s, `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '3000000', rate = '100000000');
		CREATE MATERIALIZED VIEW w WITH (max_latency = '100ms', shed = 'window') AS `+query+`;`)
	// Close once the view has shed some windows and read a good part of
	// its input (how soon it sheds depends on the machine's load).
	deadline := time.Now().Add(time.Minute)
	for {
		row := strings.Split(showRow(t, s, "QUERIES", "w"), " | ")
		read, _ := strconv.ParseInt(row[4], 10, 64)
		shed, _ := strconv.ParseInt(row[14], 10, 64)
		if read > 500_000 && shed > 0 {
			break
		}
		if read == 3_000_000 || time.Now().After(deadline) {
			t.Fatalf("w read %d rows and shed %d windows: want some shed in the middle of its input", read, shed)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	_, s2 := reopen(t, cfg)
	run(t, s2, "FLUSH; CREATE MATERIALIZED VIEW ref AS "+query+"; FLUSH;")
	got, want := windowCounts(t, s2, "w"), windowCounts(t, s2, "ref")
	for w, g := range got {
		if r, ok := want[w]; !ok || g != r {
			t.Errorf("window %s: COUNT, SUM = %v, want %v", w, g, r)
		}
	}
	if len(got) == 0 || len(got) == len(want) {
		t.Errorf("%d of %d windows emitted: want some dropped, some not", len(got), len(want))
	}
	t.Logf("%d of %d windows emitted", len(got), len(want))
}
