package cli

import (
	"bytes"
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the driver the test connects with
)

// TestServeRefusesNonLoopback checks that eddy serve will not listen on an
// address other machines reach, since it has no password yet.
func TestServeRefusesNonLoopback(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "", "serve", "--mysql", "0.0.0.0:3307")
	if code != exitUsage || !strings.Contains(errOut, "--mysql 0.0.0.0:3307: not supported yet: serving a non-loopback address (needs --password, a later release)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// lockedBuffer is a bytes.Buffer safe to write and read at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeServesAndStops runs eddy serve, creates a stream through it,
// stops it (as a signal does, by its context), and finds the stream in
// the data directory afterwards.
func TestServeServesAndStops(t *testing.T) {
	dir := t.TempDir()
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "serve", "--mysql", "127.0.0.1:0", "--http", ""}, IO{In: strings.NewReader(""), Out: out, Err: errOut})
	}()
	var addr string
	deadline := time.Now().Add(20 * time.Second)
	for addr == "" {
		if _, after, ok := strings.Cut(out.String(), "to MySQL clients on "); ok && strings.HasSuffix(after, "\n") {
			addr = strings.TrimSpace(after)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line; stdout %q stderr %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	db, err := sql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE STREAM kept (a BIGINT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "eddy stopped") {
		t.Errorf("stdout %q", out.String())
	}
	code, stdout, stderr := runCLI(t, nil, "", "--data-dir", dir, "--format", "csv", "exec", "-e", "SHOW STREAMS;")
	if code != exitOK || !strings.Contains(stdout, "kept") {
		t.Errorf("after serve: exit %d, %q %q", code, stdout, stderr)
	}
}
