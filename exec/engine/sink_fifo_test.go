//go:build unix

package engine

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/connector/sink"
)

// mkfifo makes a FIFO named name in dir and returns its path.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// TestSinkFIFOReaderGoneFailsFlush checks that a sink writing to a FIFO
// whose reader went away (EPIPE) fails its query, and FLUSH says so.
func TestSinkFIFOReaderGoneFailsFlush(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "out.fifo")
	// The reader opens first, so the sink finds it.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := openAt(t, dir)
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	run(t, s, `
		CREATE STREAM ev (a BIGINT);
		CREATE SINK pipe AS SELECT a FROM ev WITH (connector = 'file', path = 'out.fifo', format = 'json');
		INSERT INTO ev VALUES (1);
		FLUSH;`)
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || line != `{"a":1}`+"\n" {
		t.Fatalf("the reader got %q, %v", line, err)
	}
	r.Close()
	run(t, s, "INSERT INTO ev VALUES (2);")
	_, err = execOne(t, s, "FLUSH")
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("FLUSH: %v, want the sink's broken pipe", err)
	}
	want := `^pipe \| file \| failed: .*out\.fifo: broken pipe \| rewritten on restart \| SELECT a FROM ev$`
	if row := showRow(t, s, "SINKS", "pipe"); !regexp.MustCompile(want).MatchString(row) {
		t.Errorf("SHOW SINKS: %q, want /%s/", row, want)
	}
}

// promptly runs fn, which must return before ctx ends. If it does not,
// promptly calls release, which must let fn return, and fails the test
// once fn has returned.
func promptly(t *testing.T, ctx context.Context, what string, release, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		release()
		<-done
		t.Fatalf("%s waited for the FIFO's reader", what)
	}
}

// openReader returns a release for promptly that opens a reader of fifo
// (closed when t ends), which releases an open waiting for one.
func openReader(t *testing.T, fifo string) func() {
	return func() {
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			t.Cleanup(func() { r.Close() })
		}
	}
}

// TestSinkFIFOWithoutReader checks that a file sink on a FIFO that nobody
// reads holds up nothing — not CREATE SINK, not FLUSH, not a restart of
// the engine on the same data directory — and is listed as failed, with
// ErrFIFONoReader, while the other queries work.
func TestSinkFIFOWithoutReader(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "nobody.fifo")
	reader := openReader(t, fifo)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(e *Engine) {
		t.Helper()
		s := e.NewSession(SessionOptions{})
		// Failed from the start: CREATE SINK and the engine's start wait
		// for the sink to open (or fail to), never for a reader.
		want := `^pipe \| file \| failed: .*file sink: cannot open .*nobody\.fifo: it is a FIFO with no reader .* \| rewritten on restart \| SELECT a FROM ev$`
		if row := showRow(t, s, "SINKS", "pipe"); !regexp.MustCompile(want).MatchString(row) {
			t.Errorf("SHOW SINKS: %q, want /%s/", row, want)
		}
		var err error
		promptly(t, ctx, "FLUSH", reader, func() { _, err = s.Execute(ctx, mustParse(t, "FLUSH")) })
		var qf *QueriesFailedError
		if !errors.As(err, &qf) || len(qf.Failures) != 1 || !errors.Is(err, sink.ErrFIFONoReader) {
			t.Fatalf("FLUSH: %v, want the sink's ErrFIFONoReader", err)
		}
		if got := text(run(t, s, "SELECT n FROM n;")); got != "2\n" {
			t.Errorf("the view holds %q, want 2", got)
		}
	}
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 1}
	var e *Engine
	var err error
	promptly(t, ctx, "creating the sink", reader, func() {
		if e, err = Open(ctx, cfg); err != nil {
			return
		}
		s := e.NewSession(SessionOptions{})
		for _, stmt := range []string{
			"CREATE STREAM ev (a BIGINT)",
			"CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM ev",
			"CREATE SINK pipe AS SELECT a FROM ev WITH (connector = 'file', path = 'nobody.fifo', format = 'json')",
			"INSERT INTO ev VALUES (1), (2)",
		} {
			if _, err = s.Execute(ctx, mustParse(t, stmt)); err != nil {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	check(e)
	promptly(t, ctx, "closing the engine", reader, func() { e.Close() })
	// The sink is resumed when the engine opens again: it fails again,
	// and the engine opens regardless.
	promptly(t, ctx, "reopening the engine", reader, func() { e, err = Open(ctx, cfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check(e)
}

// TestSinkStalledFIFOHoldsUpNothing checks that a file sink whose FIFO
// reader reads nothing — so that the sink waits to write — holds up
// neither closing the engine, nor its start on the same data directory
// (views catch up, sinks on their own), nor DROP SINK.
func TestSinkStalledFIFOHoldsUpNothing(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir, "stalled.fifo")
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // never read
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Opening another reader releases no write: closing the reader does
	// (EPIPE).
	closeReader := func() { r.Close() }
	values := make([]string, 1000)
	for i := range values {
		values[i] = "(" + strconv.Itoa(i) + ")"
	}
	cfg := Config{DataDir: filepath.Join(dir, "data"), FileRoot: dir, Parallelism: 1}
	e, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// About 1 MB of output: far more than the pipe and the sink's buffer
	// hold.
	run(t, e.NewSession(SessionOptions{}), `
		CREATE STREAM ev (a BIGINT);
		CREATE MATERIALIZED VIEW n AS SELECT COUNT(*) AS n FROM ev;
		CREATE SINK pipe AS SELECT a, RPAD('x', 1000, 'x') AS pad FROM ev WITH (connector = 'file', path = 'stalled.fifo', format = 'json');
		INSERT INTO ev VALUES `+strings.Join(values, ", ")+";")
	promptly(t, ctx, "closing the engine", closeReader, func() { e.Close() })
	promptly(t, ctx, "reopening the engine", closeReader, func() { e, err = Open(ctx, cfg) })
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s := e.NewSession(SessionOptions{})
	if got := text(run(t, s, "SELECT n FROM n;")); got != "1000\n" {
		t.Errorf("the view holds %q after the restart, want 1000", got)
	}
	if row := showRow(t, s, "SINKS", "pipe"); !strings.HasPrefix(row, "pipe | file | running | ") {
		t.Errorf("SHOW SINKS: %q, want the sink running", row)
	}
	promptly(t, ctx, "DROP SINK", closeReader, func() { _, err = s.Execute(ctx, mustParse(t, "DROP SINK pipe")) })
	if err != nil {
		t.Fatal(err)
	}
}
