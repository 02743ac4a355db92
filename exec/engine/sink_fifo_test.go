//go:build unix

package engine

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
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
	want := `^pipe \| file \| failed: .*out\.fifo: broken pipe \| SELECT a FROM ev$`
	if row := showRow(t, s, "SINKS", "pipe"); !regexp.MustCompile(want).MatchString(row) {
		t.Errorf("SHOW SINKS: %q, want /%s/", row, want)
	}
}
