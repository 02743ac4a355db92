package server

import (
	"context"
	"crypto/tls"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/eddysql/eddy/cmd/eddy/internal/testcert"
)

// withTLS returns a Config edit that sets a password and tc's TLS.
func withTLS(t *testing.T, tc testcert.Cert, require bool) func(*Config) {
	return func(cfg *Config) {
		withPassword(cfg)
		tlsCfg, err := LoadTLS(tc.CertFile, tc.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.TLS, cfg.RequireTLS = tlsCfg, require
	}
}

// registerTLS registers a go-sql-driver TLS configuration trusting tc
// under t's name, for a DSN's tls=.
func registerTLS(t *testing.T, tc testcert.Cert) string {
	t.Helper()
	name := "eddy-" + t.Name()
	if err := mysql.RegisterTLSConfig(name, &tls.Config{RootCAs: tc.Pool, ServerName: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mysql.DeregisterTLSConfig(name) })
	return name
}

// tlsOf reports whether the server's connection behind c uses TLS.
func tlsOf(t *testing.T, srv *Server, c execer) bool {
	t.Helper()
	var id int64
	rows, err := c.QueryContext(context.Background(), "SELECT CONNECTION_ID()")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		rows.Scan(&id)
	}
	rows.Close()
	cn := srv.lookup(uint32(id))
	if cn == nil {
		t.Fatalf("no connection %d", id)
	}
	return cn.c.TLSEnabled()
}

// TestTLSCachingSha2 logs in over TLS with caching_sha2_password, the
// method a server with TLS announces: the first login after the server
// starts is a full authentication (the password, over TLS), which fills
// the cache, and the next ones take the fast path; a wrong password is
// refused on either path.
func TestTLSCachingSha2(t *testing.T) {
	tc := testcert.New(t)
	srv := startServerWith(t, withTLS(t, tc, false))
	name := registerTLS(t, tc)
	dsn := func(cred string) string { return cred + "@tcp(" + srv.Addr() + ")/?tls=" + name }

	// Not cached yet: a wrong password goes to a full authentication.
	if me := mysqlError(t, openDSN(t, dsn("root:wrong")).Ping()); me.Number != 1045 {
		t.Errorf("wrong password before the cache: %d %q", me.Number, me.Message)
	}
	c := dbConn(t, openDSN(t, dsn("root:s3cret")))
	mustExec(t, c, "CREATE STREAM s (a BIGINT)")
	if !tlsOf(t, srv, c) {
		t.Error("the connection does not use TLS")
	}
	if full, fast := srv.auth.fullAuths.Load(), srv.auth.fastAuths.Load(); full != 1 || fast != 0 {
		t.Errorf("after the first login: %d full and %d fast authentications, want 1 and 0", full, fast)
	}
	c2 := dbConn(t, openDSN(t, dsn("root:s3cret")))
	mustExec(t, c2, "INSERT INTO s VALUES (1)")
	if full, fast := srv.auth.fullAuths.Load(), srv.auth.fastAuths.Load(); full != 1 || fast != 1 {
		t.Errorf("after the second login: %d full and %d fast authentications, want 1 and 1", full, fast)
	}
	// Cached: a wrong password fails the fast path.
	if me := mysqlError(t, openDSN(t, dsn("root:wrong")).Ping()); me.Number != 1045 {
		t.Errorf("wrong password after the cache: %d %q", me.Number, me.Message)
	}
	if st := srv.Stats(); st.AuthFailures != 2 {
		t.Errorf("AuthFailures = %d, want 2", st.AuthFailures)
	}
}

// TestTLSOptional checks that a server with TLS still lets in a client
// without it (switched to mysql_native_password), unless it requires
// TLS: then the client is refused with ER_SECURE_TRANSPORT_REQUIRED and
// counted, and a TLS client gets in.
func TestTLSOptional(t *testing.T) {
	tc := testcert.New(t)
	srv := startServerWith(t, withTLS(t, tc, false))
	c := dbConn(t, openDSN(t, "root:s3cret@tcp("+srv.Addr()+")/"))
	if tlsOf(t, srv, c) {
		t.Error("a plain client's connection uses TLS")
	}

	strict := startServerWith(t, withTLS(t, tc, true))
	err := openDSN(t, "root:s3cret@tcp("+strict.Addr()+")/").Ping()
	if me := mysqlError(t, err); me.Number != 3159 || !strings.Contains(me.Message, "insecure transport") {
		t.Errorf("plain client under RequireTLS: %d %q", me.Number, me.Message)
	}
	if st := strict.Stats(); st.ConnectionsRefused != 1 || st.AuthFailures != 0 {
		t.Errorf("stats %+v, want one connection refused and no auth failure", st)
	}
	name := registerTLS(t, tc)
	if err := openDSN(t, "root:s3cret@tcp("+strict.Addr()+")/?tls="+name).Ping(); err != nil {
		t.Errorf("TLS client under RequireTLS: %v", err)
	}
}

// TestTLSMariaDBClient logs in twice with the real mariadb client over
// TLS (verifying the server's certificate), and checks that without TLS it
// is refused by a server that requires it.
func TestTLSMariaDBClient(t *testing.T) {
	client := mysqlClient(t)
	tc := testcert.New(t)
	srv := startServerWith(t, withTLS(t, tc, true))
	host, port, _ := net.SplitHostPort(srv.Addr())
	run := func(args ...string) (string, error) {
		args = append([]string{"--no-defaults", "-h", host, "-P", port, "-u", "root", "--password=s3cret"}, args...)
		out, err := exec.Command(client, args...).CombinedOutput()
		return string(out), err
	}
	for range 2 {
		if out, err := run("--ssl", "--ssl-ca="+tc.CertFile, "--ssl-verify-server-cert", "-e", "SELECT 1 + 1 AS two"); err != nil || out != "two\n2\n" {
			t.Errorf("over TLS: %v\n%s", err, out)
		}
	}
	// It logs in with caching_sha2_password, once fully, then fast.
	if full, fast := srv.auth.fullAuths.Load(), srv.auth.fastAuths.Load(); full != 1 || fast != 1 {
		t.Errorf("%d full and %d fast authentications, want 1 and 1", full, fast)
	}
	if out, err := run("--skip-ssl", "-e", "SELECT 1"); err == nil || !strings.Contains(out, "ERROR 3159") {
		t.Errorf("without TLS: %v\n%s", err, out)
	}
}

// TestLoadTLS checks LoadTLS's errors.
func TestLoadTLS(t *testing.T) {
	tc := testcert.New(t)
	if _, err := LoadTLS(tc.CertFile, tc.KeyFile); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTLS(tc.CertFile, filepath.Join(t.TempDir(), "missing.pem")); err == nil || !strings.Contains(err.Error(), "loading the TLS certificate") {
		t.Errorf("missing key: %v", err)
	}
	if _, err := LoadTLS(tc.KeyFile, tc.CertFile); err == nil {
		t.Error("swapped files loaded")
	}
}
