package client

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/eddysql/eddy/cmd/eddy/internal/testcert"
	"github.com/eddysql/eddy/cmd/eddy/server"
)

// TestTLSAndPassword connects over TLS to eddy's server with a certificate
// and a password (caching_sha2_password, which sends the password in full
// over TLS), and checks that the connection is encrypted, and that a wrong
// CA, the system's CAs, a wrong password, and TLS to a server without it
// are refused.
func TestTLSAndPassword(t *testing.T) {
	cert, other := testcert.New(t), testcert.New(t)
	tlsCfg, err := server.LoadTLS(cert.CertFile, cert.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.Listen(server.Config{Addr: "127.0.0.1:0", Engine: openEngine(t, ""), Version: "test",
		User: "alice", Password: "s3cret", TLS: tlsCfg})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(srv.Close)
	addr := srv.Addr()

	s, err := Dial(context.Background(), Config{Addr: addr, User: "alice", Password: "s3cret", CAFile: cert.CertFile})
	if err != nil {
		t.Fatal(err)
	}
	encrypted := s.conn.TLSEnabled()
	res, err := s.Execute(context.Background(), stmtOf(t, "SELECT 1 AS one;"))
	s.Close()
	if err != nil || !reflect.DeepEqual(formatRows(res.Columns, res.Rows), []string{"1"}) {
		t.Fatalf("over TLS: %v, %v", res, err)
	}
	if !encrypted {
		t.Error("the connection is not encrypted")
	}

	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"another CA", Config{Addr: addr, User: "alice", Password: "s3cret", CAFile: other.CertFile}, "certificate signed by unknown authority"},
		{"the system's CAs", Config{Addr: addr, User: "alice", Password: "s3cret", TLS: true}, "certificate signed by unknown authority"},
		{"a wrong password", Config{Addr: addr, User: "alice", Password: "guess", CAFile: cert.CertFile}, "Access denied for user 'alice'"},
		{"TLS from a server without it", Config{Addr: startServer(t).Addr(), User: "root", TLS: true}, "server doesn't support SSL"},
	} {
		s, err := Dial(context.Background(), tc.cfg)
		if err == nil {
			s.Close()
			t.Errorf("%s: connected", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
