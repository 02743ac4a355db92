package web

import (
	"errors"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/engine"
)

// TestCheckAddr: loopback addresses are served without a password, any
// other only with one.
func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr, password string
		refused        bool
	}{
		{"127.0.0.1:8081", "", false},
		{"localhost:8081", "", false},
		{"[::1]:8081", "", false},
		{"127.0.0.2:0", "", false},
		{"0.0.0.0:8081", "", true},
		{":8081", "", true},
		{"10.1.2.3:8081", "", true},
		{"0.0.0.0:8081", "secret", false},
		{"example.com:80", "secret", false},
	} {
		err := CheckAddr(c.addr, c.password)
		if refused := errors.Is(err, ErrNotLoopback); refused != c.refused || (err != nil && !refused) {
			t.Errorf("CheckAddr(%q, %q) = %v, refused: want %v", c.addr, c.password, err, c.refused)
		}
	}
	if err := CheckAddr("nonsense", ""); err == nil || !strings.Contains(err.Error(), `bad address "nonsense"`) {
		t.Errorf("CheckAddr of a bad address: %v", err)
	}
	eng := newEngine(t, engine.Config{Parallelism: 1}, ``)
	if _, err := Listen(Config{Addr: "0.0.0.0:0", Engine: eng}); !errors.Is(err, ErrNotLoopback) {
		t.Errorf("Listen on 0.0.0.0 without a password: %v", err)
	}
}

// TestBasicAuth: with a password, every path needs it (and the user name,
// when one is set) through basic authentication; a refusal is a 401 that
// asks for it.
func TestBasicAuth(t *testing.T) {
	eng := newEngine(t, engine.Config{Parallelism: 1}, nexmarkScript)
	anyUser := startServer(t, eng, Config{Password: "s3cret"})
	root := startServer(t, eng, Config{Password: "s3cret", User: "admin"})
	for _, c := range []struct {
		base, user, password string
		set                  bool
		want                 int
	}{
		{anyUser, "", "", false, 401},
		{anyUser, "anyone", "wrong", true, 401},
		{anyUser, "anyone", "s3cret", true, 200},
		{anyUser, "", "s3cret", true, 200},
		{anyUser, "anyone", "s3cret ", true, 401},
		{root, "admin", "s3cret", true, 200},
		{root, "root", "s3cret", true, 401},
		{root, "admin", "", true, 401},
	} {
		for _, path := range []string{"/", "/app.js", "/metrics", "/api/catalog", "/api/queries", "/api/queries/per_channel"} {
			req := mustRequest(t, c.base+path)
			if c.set {
				req.SetBasicAuth(c.user, c.password)
			}
			code, ctype, body := do(t, req)
			if code != c.want {
				t.Errorf("GET %s as %q/%q: %d, want %d", path, c.user, c.password, code, c.want)
			}
			if code == 401 && (!strings.Contains(string(body), `"error": "unauthorized`) || !strings.HasPrefix(ctype, "application/json")) {
				t.Errorf("GET %s refused with %s %s", path, ctype, body)
			}
		}
	}
	code, _, _ := get(t, anyUser+"/api/queries")
	if code != 401 {
		t.Errorf("no credentials: %d", code)
	}
	// The challenge names the realm.
	req := mustRequest(t, anyUser+"/")
	res, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("WWW-Authenticate"); got != `Basic realm="eddy", charset="UTF-8"` {
		t.Errorf("WWW-Authenticate: %q", got)
	}
}
