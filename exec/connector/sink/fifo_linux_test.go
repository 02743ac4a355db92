package sink

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// fGetPipeSz is Linux's fcntl command F_GETPIPE_SZ, which syscall lacks.
const fGetPipeSz = 1032

// pipeFull reports whether the pipe whose read end is r holds as many
// bytes as it can: a writer then waits.
func pipeFull(t *testing.T, r *os.File) bool {
	t.Helper()
	rc, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var queued, size int
	var errno syscall.Errno
	rc.Control(func(fd uintptr) {
		var n int32
		if _, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); errno != 0 {
			return
		}
		queued = int(n)
		var sz uintptr
		sz, _, errno = syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSz, 0)
		size = int(sz)
	})
	if errno != 0 {
		t.Fatal(errno)
	}
	return queued >= size
}

// TestFileSinkStalledFIFOStopsWithQuery checks that a write waiting on a
// FIFO whose reader does not read returns when the query's context ends,
// so that stopping the query never waits on the reader, and that the
// interruption is the query's cancellation, not a failure.
func TestFileSinkStalledFIFOStopsWithQuery(t *testing.T) {
	cfg := fifoConfig(t)
	r := openReader(t, resolved(t, cfg)) // never reads
	cfg.Names, cfg.Types = []string{"s"}, []types.T{types.VarcharT}
	s := mustNew(t, cfg)
	qctx, stop := context.WithCancel(context.Background())
	defer stop()
	if err := s.Open(qctx, exec.NewTestEnv(memory.DefaultAllocator)); err != nil {
		t.Fatal(err)
	}
	// More than a pipe holds (64 KiB by default): the write waits.
	row := []types.Datum{types.StringDatum(strings.Repeat("x", 1000))}
	rows := make([][]types.Datum, 1000)
	for i := range rows {
		rows[i] = row
	}
	c := makeChunk(t, newAlloc(t), cfg.Names, cfg.Types, rows, nil)
	done := make(chan error, 1)
	go func() { done <- s.Process(qctx, 0, c, nil) }()
	deadline, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for !pipeFull(t, r) {
		select {
		case err := <-done:
			t.Fatalf("Process returned %v before the pipe filled", err)
		case <-deadline.Done():
			t.Fatal("the pipe never filled")
		case <-time.After(time.Millisecond):
		}
	}
	stop() // the query is stopped (DROP SINK, eddy closing)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Process: %v, want the query's cancellation", err)
		}
	case <-deadline.Done():
		r.Close() // the waiting write fails with EPIPE and returns
		<-done
		t.Fatal("the write waited on the reader after the query was stopped")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}
