package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// newEngine opens an engine in memory with cfg and runs script on it;
// the engine is closed when t ends.
func newEngine(t *testing.T, cfg engine.Config, script string) *engine.Engine {
	t.Helper()
	eng, err := engine.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := eng.Close(); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
	})
	stmts, err := sql.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(engine.SessionOptions{})
	for _, st := range stmts {
		if _, err := s.Execute(context.Background(), st); err != nil {
			t.Fatalf("%s: %v", st.Source().Text(), err)
		}
	}
	return eng
}

// startServer serves eng over HTTP on a free loopback port with cfg
// (Addr and Engine filled in) until t ends, and returns its base URL.
func startServer(t *testing.T, eng *engine.Engine, cfg Config) string {
	t.Helper()
	cfg.Addr, cfg.Engine = "127.0.0.1:0", eng
	if cfg.Version == "" {
		cfg.Version = "test"
	}
	srv, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve() }()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serving: %v", err)
		}
	})
	return "http://" + srv.Addr()
}

// httpClient is the tests' client: no request takes long.
var httpClient = http.Client{Timeout: 10 * time.Second}

// get fetches url and returns its status, content type and body.
func get(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	return do(t, mustRequest(t, url))
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// do sends req and returns the response's status, content type and
// body.
func do(t *testing.T, req *http.Request) (int, string, []byte) {
	t.Helper()
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), body
}

// getJSON fetches url, expects status want and a JSON body, and decodes
// it into v.
func getJSON(t *testing.T, url string, want int, v any) {
	t.Helper()
	code, ctype, body := get(t, url)
	if code != want || ctype != "application/json; charset=utf-8" {
		t.Fatalf("GET %s: %d %s, want %d JSON: %s", url, code, ctype, want, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
}

// waitFor calls cond every 20ms until it returns true, failing t with
// what after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nexmarkScript creates a throttled nexmark bid stream and a view
// counting bids per channel over it: a query that keeps running, with a
// source stage, a two-phase aggregate behind a hash exchange and the
// view's sink.
const nexmarkScript = `
	CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', rate = '5000');
	CREATE MATERIALIZED VIEW per_channel AS
	  SELECT channel, COUNT(*) AS bids, MAX(price) AS top FROM bid GROUP BY channel;`
