package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFileSinkPublishesExactlyOnce: a checkpointed file sink's rows reach
// its file when a checkpoint commits (FLUSH takes one), never before; after
// a crash, the rows its last checkpoint did not cover are written again
// from its source's recorded position, once; after a clean restart it
// goes on where it stopped. SHOW SINKS and EXPLAIN say exactly-once.
func TestFileSinkPublishesExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 2, CheckpointInterval: time.Hour}
	out := filepath.Join(dir, "out.csv")
	e := openEngine(t, cfg)
	s := e.NewSession(SessionOptions{})
	if got := text(run(t, s, `CREATE STREAM s (k INT, v VARCHAR);
		EXPLAIN CREATE SINK o AS SELECT k, v FROM s WHERE k > 0 WITH (connector = 'file', path = 'out.csv', header = 'true');`)); !strings.Contains(got, "guarantee=exactly-once") {
		t.Errorf("EXPLAIN says\n%s", got)
	}
	run(t, s, `CREATE SINK o AS SELECT k, v FROM s WHERE k > 0 WITH (connector = 'file', path = 'out.csv', header = 'true');
		INSERT INTO s VALUES (1, 'a'), (2, 'b'), (-1, 'x'); FLUSH;`)
	want := "k,v\n1,a\n2,b\n"
	if got := readOut(t, out); got != want {
		t.Fatalf("after FLUSH the file holds %q, want %q", got, want)
	}
	if got := showRow(t, s, "SINKS", "o"); !strings.Contains(got, "| exactly-once |") {
		t.Errorf("SHOW SINKS: %s", got)
	}
	// Rows that reach the sink without a checkpoint stay out of the file.
	run(t, s, `INSERT INTO s VALUES (3, 'c'), (4, 'd');`)
	if _, err := e.flushAll(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := readOut(t, out); got != want {
		t.Fatalf("uncommitted rows reached the file: %q", got)
	}
	e, s = crash(t, e, cfg)
	run(t, s, "FLUSH;")
	want += "3,c\n4,d\n"
	if got := readOut(t, out); got != want {
		t.Fatalf("after the crash the file holds %q, want %q", got, want)
	}
	run(t, s, `INSERT INTO s VALUES (5, 'e');`)
	e, s = restart(t, e, cfg)
	run(t, s, `INSERT INTO s VALUES (6, 'f'); FLUSH;`)
	want += "5,e\n6,f\n"
	if got := readOut(t, out); got != want {
		t.Fatalf("after the restart the file holds %q, want %q", got, want)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, ".out.csv.*")); len(parts) > 1 {
		t.Errorf("parts left behind: %v", parts)
	}
}

// readOut returns the content of a sink's file.
func readOut(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
