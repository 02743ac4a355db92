package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeHTTPRefusesNonLoopback: without a password, --http will not
// listen on an address other machines reach.
func TestServeHTTPRefusesNonLoopback(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "", "serve", "--mysql", "127.0.0.1:0", "--http", "0.0.0.0:8081")
	if code != exitUsage || !strings.Contains(errOut, "--http 0.0.0.0:8081: serving a non-loopback address needs a password (--password)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestServeHTTP runs eddy serve with --http on a free port, gets
// /api/queries from it, and stops it, which stops the HTTP server too.
func TestServeHTTP(t *testing.T) {
	dir := t.TempDir()
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--data-dir", dir, "serve", "--mysql", "127.0.0.1:0", "--http", "127.0.0.1:0"},
			IO{In: strings.NewReader(""), Out: out, Err: errOut})
	}()
	var base string
	deadline := time.Now().Add(20 * time.Second)
	for base == "" {
		if _, after, ok := strings.Cut(out.String(), "/metrics and /api on "); ok && strings.Contains(after, "\n") {
			base, _, _ = strings.Cut(after, "\n")
			base = strings.TrimSuffix(base, "/")
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line; stdout %q stderr %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("the HTTP server listens on %q", base)
	}
	res, err := http.Get(base + "/api/queries")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var doc struct {
		Queries []any `json:"queries"`
	}
	if err := json.Unmarshal(body, &doc); res.StatusCode != 200 || err != nil || doc.Queries == nil {
		t.Errorf("GET /api/queries: %d %v %s", res.StatusCode, err, body)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	if _, err := http.Get(base + "/api/queries"); err == nil {
		t.Error("the HTTP server still answers after eddy serve stopped")
	}
}
