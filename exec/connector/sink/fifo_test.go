//go:build unix

package sink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/connector/conntest"
)

// fifoConfig is a JSON file sink of allTypes writing to a new FIFO in a
// temporary directory.
func fifoConfig(t *testing.T) Config {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "out.fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	cfg, err := FromOptions(map[string]string{"connector": "file", "path": "out.fifo", "format": "json"}, conntest.RootAt(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Names, cfg.Types, cfg.AppendOnly = allNames, allTypes, true
	return cfg
}

// openReader opens the FIFO at path for reading without waiting for a
// writer, and closes it when the test ends.
func openReader(t *testing.T, path string) *os.File {
	t.Helper()
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestFileSinkFIFOWithoutReader checks that opening a sink on a FIFO that
// no process reads fails at once, with ErrFIFONoReader, instead of waiting
// for a reader.
func TestFileSinkFIFOWithoutReader(t *testing.T) {
	cfg := fifoConfig(t)
	s := mustNew(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Open(ctx, exec.NewTestEnv(memory.DefaultAllocator)) }()
	select {
	case err := <-done:
		want := "file sink: cannot open " + resolved(t, cfg) + ": it is a FIFO with no reader (start the reader before the sink)"
		if !errors.Is(err, ErrFIFONoReader) || err.Error() != want {
			t.Fatalf("Open: %v, want %q", err, want)
		}
	case <-ctx.Done():
		openReader(t, resolved(t, cfg)) // lets the blocked open return
		<-done
		t.Fatal("Open waited for a reader of the FIFO")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFileSinkFIFOWithReader checks that a sink writes to a FIFO whose
// reader is there, through O_NONBLOCK.
func TestFileSinkFIFOWithReader(t *testing.T) {
	cfg := fifoConfig(t)
	r := openReader(t, resolved(t, cfg))
	s := mustNew(t, cfg)
	open(t, s)
	process(t, s, makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), nil))
	control(t, s, exec.Flush)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 64<<10)
	var got []byte
	for {
		n, err := r.Read(b)
		got = append(got, b[:n]...)
		if err != nil {
			break // io.EOF once the sink closed its end
		}
	}
	if want := lines(wantJSON...); string(got) != want {
		t.Errorf("the reader got\n%s\nwant\n%s", got, want)
	}
}
