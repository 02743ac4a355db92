package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/cmd/eddy/client"
	"github.com/eddysql/eddy/exec/engine"
)

// TestLongStatementShowsProgress runs a FLUSH that waits about a second
// for a throttled generator: the terminal shows its progress on one line,
// rewritten in place and erased before the result is printed.
func TestLongStatementShowsProgress(t *testing.T) {
	defer func(d, e time.Duration) { progressDelay, progressEvery = d, e }(progressDelay, progressEvery)
	progressDelay, progressEvery = 50*time.Millisecond, 20*time.Millisecond
	eng, err := engine.Open(context.Background(), engine.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var out bytes.Buffer
	var term syncBuffer
	r := &runner{sess: eng.NewSession(engine.SessionOptions{}), p: &printer{out: &out, errOut: &out, progress: &term}}
	ctx := context.Background()
	if err := r.runScript(ctx, "", `CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '2000', rate = '2000');
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c FROM bid;
		FLUSH;`); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	shown := term.String()
	if !strings.Contains(shown, "\r\x1b[KFLUSH: ") || !strings.Contains(shown, " rows (") || !strings.Contains(shown, "rows/s") {
		t.Fatalf("no progress line on the terminal: %q", shown)
	}
	if !strings.HasSuffix(shown, "\r\x1b[K") {
		t.Fatalf("the progress line was not erased: %q", shown)
	}
	if strings.Contains(out.String(), "FLUSH:") {
		t.Fatalf("progress reached the results: %q", out.String())
	}
	// A short statement shows nothing.
	before := len(term.String())
	if err := r.runScript(ctx, "", "SHOW STREAMS"); err != nil {
		t.Fatal(err)
	}
	if len(term.String()) != before {
		t.Fatalf("a short statement showed progress: %q", term.String()[before:])
	}
}

func TestStartupProgressLines(t *testing.T) {
	var log bytes.Buffer
	report, clear := startupProgress(&log, true)
	report(engine.Progress{What: "restoring materialized view v", Done: 1 << 20, Known: 2 << 20, Unit: "bytes", Elapsed: time.Second})
	clear()
	if got, want := log.String(), "restoring materialized view v: 1.00 MiB of 2.00 MiB (50%), 1.00 MiB/s, 1s\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Not a terminal, not a log: no reports.
	if report, _ := startupProgress(&log, false); report != nil {
		t.Fatal("reports to a buffer that is not a terminal")
	}
}

// TestRemoteStatementShowsProgress is TestLongStatementShowsProgress over
// --connect: the session asks the server for its statement's progress
// (SHOW FULL PROCESSLIST on a second connection).
func TestRemoteStatementShowsProgress(t *testing.T) {
	defer func(d, e time.Duration) { progressDelay, progressEvery = d, e }(progressDelay, progressEvery)
	progressDelay, progressEvery = 50*time.Millisecond, 20*time.Millisecond
	addr := startEddyServer(t)
	sess, err := client.Dial(context.Background(), client.Config{Addr: addr, User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out bytes.Buffer
	var term syncBuffer
	r := &runner{sess: sess, p: &printer{out: &out, errOut: &out, progress: &term}}
	if err := r.runScript(context.Background(), "", `SET parallelism = 1;
		CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '2000', rate = '2000');
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS c FROM bid;
		FLUSH;`); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	shown := term.String()
	if !strings.Contains(shown, "\r\x1b[KFLUSH: ") || !strings.Contains(shown, " rows (") || !strings.HasSuffix(shown, "\r\x1b[K") {
		t.Fatalf("no progress line, or not erased: %q", shown)
	}
}
