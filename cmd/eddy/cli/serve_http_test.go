package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeHTTPRefusesNonLoopback: without a password, --http will not
// listen on an address other machines reach; with one it may (it then
// asks every request for the password).
func TestServeHTTPRefusesNonLoopback(t *testing.T) {
	code, _, errOut := runCLI(t, nil, "", "serve", "--mysql", "127.0.0.1:0", "--http", "0.0.0.0:8081")
	if code != exitUsage || !strings.Contains(errOut, "--http 0.0.0.0:8081 is not a loopback address: serving it needs a password (--password or EDDY_PASSWORD)") {
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

// TestServePasswordGuardsHTTP runs eddy serve with a password: the HTTP
// server asks every request for it, and /metrics counts the MySQL logins
// refused for a wrong one.
func TestServePasswordGuardsHTTP(t *testing.T) {
	s := startServe(t, t.TempDir(), "--mysql", "127.0.0.1:0", "--http", "127.0.0.1:0", "--password", "s3cret")
	_, after, ok := strings.Cut(s.out.String(), "/metrics and /api on ")
	if !ok {
		t.Fatalf("no HTTP listening line: %q", s.out.String())
	}
	base, _, _ := strings.Cut(after, "\n")
	base = strings.TrimSuffix(base, "/")
	get := func(user, pass string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", base+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	if code, _ := get("", ""); code != http.StatusUnauthorized {
		t.Fatalf("no password: HTTP %d, want 401", code)
	}
	if code, _ := get("root", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("a wrong password: HTTP %d, want 401", code)
	}
	db, err := sql.Open("mysql", "root:wrong@tcp("+s.addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); err == nil || !strings.Contains(err.Error(), "1045") {
		t.Fatalf("a wrong MySQL password: %v, want error 1045", err)
	}
	code, body := get("root", "s3cret")
	if code != http.StatusOK {
		t.Fatalf("the password: HTTP %d", code)
	}
	for _, want := range []string{"eddy_mysql_auth_failures_total 1\n", "eddy_mysql_connections_open "} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
