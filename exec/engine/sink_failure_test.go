package engine

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/eddysql/eddy/catalog"
)

// dirSession opens an engine (closed when t ends) at a new directory that
// holds a directory adir, which a file sink cannot write as a file, and
// returns a session of it.
func dirSession(t *testing.T) *Session {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	e := openAt(t, dir)
	t.Cleanup(func() { e.Close() })
	return e.NewSession(SessionOptions{})
}

// TestFailedSinkFailsFlush checks that a sink that cannot write its file
// fails its query: FLUSH returns the error (and keeps returning it until
// the sink is dropped), and SHOW SINKS and SHOW QUERIES list it as failed
// with the error while the other queries run on.
func TestFailedSinkFailsFlush(t *testing.T) {
	s := dirSession(t)
	run(t, s, `
		CREATE STREAM ev (a BIGINT);
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM ev;
		CREATE SINK into_dir AS SELECT a FROM ev WITH (connector = 'file', path = 'adir', format = 'json');
		CREATE SINK fine AS SELECT a FROM ev WITH (connector = 'blackhole');
		INSERT INTO ev VALUES (1), (2);`)
	for range 2 {
		_, err := execOne(t, s, "FLUSH")
		var qf *QueriesFailedError
		if !errors.As(err, &qf) || len(qf.Failures) != 1 || qf.Failures[0].Name != "into_dir" || !errors.Is(err, syscall.EISDIR) {
			t.Fatalf("FLUSH: %v, want a QueriesFailedError for into_dir with EISDIR", err)
		}
		if !strings.HasPrefix(err.Error(), "sink into_dir failed: ") || !strings.Contains(err.Error(), "DROP SINK into_dir") {
			t.Errorf("FLUSH: %q", err)
		}
	}
	status := `failed: .*file sink: create .*adir: is a directory`
	for _, c := range []struct{ what, name, want string }{
		{"SINKS", "into_dir", `^into_dir \| file \| ` + status + ` \| rewritten on restart \| SELECT a FROM ev$`},
		{"SINKS", "fine", `^fine \| blackhole \| running \| exactly-once \| SELECT a FROM ev$`},
		{"QUERIES", "into_dir", `^into_dir \| sink \| ` + status + ` \| 1 \| `},
		{"QUERIES", "fine", `^fine \| sink \| running \| 1 \| 2 \| 2 \| `},
		{"QUERIES", "n", `^n \| materialized view \| running \| `},
		{"MATERIALIZED VIEWS", "n", `^n \| running \| 1 \| `},
	} {
		if row := showRow(t, s, c.what, c.name); !regexp.MustCompile(c.want).MatchString(row) {
			t.Errorf("SHOW %s: %s is %q, want /%s/", c.what, c.name, row, c.want)
		}
	}
	if got := text(run(t, s, "SELECT n FROM n;")); got != "2\n" {
		t.Errorf("the view holds %q, want 2", got)
	}
	run(t, s, "DROP SINK into_dir;")
	if _, err := execOne(t, s, "FLUSH"); err != nil {
		t.Errorf("FLUSH after DROP SINK: %v", err)
	}
}

// TestFlushListsEveryFailedQuery checks that FLUSH names each failed query
// when several failed.
func TestFlushListsEveryFailedQuery(t *testing.T) {
	s := dirSession(t)
	run(t, s, `
		CREATE STREAM ev (a BIGINT, b VARCHAR);
		CREATE SINK one AS SELECT a FROM ev WITH (connector = 'file', path = 'adir', format = 'json');
		CREATE MATERIALIZED VIEW two AS SELECT CAST(b AS BIGINT) AS x FROM ev;
		INSERT INTO ev VALUES (1, 'not a number');`)
	_, err := execOne(t, s, "FLUSH")
	var qf *QueriesFailedError
	if !errors.As(err, &qf) || len(qf.Failures) != 2 {
		t.Fatalf("FLUSH: %v, want two failures", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "2 continuous queries failed") ||
		!regexp.MustCompile(`\n  sink one: .*is a directory`).MatchString(msg) ||
		!regexp.MustCompile(`\n  materialized view two: .*not a number`).MatchString(msg) {
		t.Errorf("FLUSH: %q", msg)
	}
}

// TestQueryThatCouldNotResumeIsFailed checks that a stored query that no
// longer plans when the engine opens is failed, by the same status as a
// query that failed while running: SHOW SINKS and SHOW QUERIES list it,
// FLUSH reports it, DROP removes it.
func TestQueryThatCouldNotResumeIsFailed(t *testing.T) {
	dir := t.TempDir()
	e := openAt(t, dir)
	s := e.NewSession(SessionOptions{})
	run(t, s, "CREATE STREAM ev (a BIGINT); CREATE MATERIALIZED VIEW v AS SELECT a FROM ev;")
	// A sink whose stored query reads an object that no longer exists.
	stale := &catalog.Object{Name: "stale", Kind: catalog.Sink, Query: "SELECT * FROM gone",
		Options: map[string]string{"connector": "blackhole"}}
	if err := e.Catalog().Create(stale); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openAt(t, dir)
	defer e.Close()
	s = e.NewSession(SessionOptions{})
	status := `failed: could not resume: .*gone[^|]*`
	for _, c := range []struct{ what, name, want string }{
		{"SINKS", "stale", `^stale \| blackhole \| ` + status + ` \| - \| SELECT \* FROM gone$`},
		{"QUERIES", "stale", `^stale \| sink \| ` + status + ` \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| NULL \| 0s \| 0 \| 0 \| 0 \| 0 \| NULL \| NULL \| NULL \| NULL \| NULL$`},
		{"QUERIES", "v", `^v \| materialized view \| running \| 1 \| `},
	} {
		if row := showRow(t, s, c.what, c.name); !regexp.MustCompile(c.want).MatchString(row) {
			t.Errorf("SHOW %s: %s is %q, want /%s/", c.what, c.name, row, c.want)
		}
	}
	if _, err := execOne(t, s, "FLUSH"); err == nil || !regexp.MustCompile(`^sink stale failed: could not resume: .*gone`).MatchString(err.Error()) {
		t.Errorf("FLUSH: %v, want the sink that could not resume", err)
	}
	run(t, s, "DROP SINK stale;")
	if _, err := execOne(t, s, "FLUSH"); err != nil {
		t.Errorf("FLUSH after DROP SINK: %v", err)
	}
}
