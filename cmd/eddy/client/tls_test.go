package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/replication"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"
	"vitess.io/vitess/go/vt/vtenv"
)

// tlsHandler is a MySQL server's handler that answers every query with
// one BIGINT row, and records whether the query came over TLS. eddy's
// server does not encrypt yet, so the client's TLS is tested against it.
type tlsHandler struct {
	mysql.UnimplementedHandler
	env     *vtenv.Environment
	overTLS atomic.Bool
}

func (h *tlsHandler) ComQuery(c *mysql.Conn, _ string, callback func(*sqltypes.Result) error) error {
	h.overTLS.Store(c.TLSEnabled())
	return callback(&sqltypes.Result{
		Fields: []*querypb.Field{{Name: "one", Type: sqltypes.Int64, ColumnLength: 20}},
		Rows:   []sqltypes.Row{{sqltypes.NewInt64(1)}},
	})
}

func (h *tlsHandler) ComQueryMulti(c *mysql.Conn, text string, callback func(sqltypes.QueryResponse, bool, bool) error) error {
	return h.ComQuery(c, text, func(r *sqltypes.Result) error {
		return callback(sqltypes.QueryResponse{QueryResult: r}, false, true)
	})
}

func (h *tlsHandler) ComPrepare(*mysql.Conn, string) ([]*querypb.Field, uint16, error) {
	return nil, 0, nil
}

func (h *tlsHandler) ComStmtExecute(*mysql.Conn, *mysql.PrepareData, func(*sqltypes.Result) error) error {
	return nil
}

func (h *tlsHandler) ComRegisterReplica(*mysql.Conn, string, uint16, string, string) error {
	return nil
}

func (h *tlsHandler) ComBinlogDump(*mysql.Conn, string, uint32) error { return nil }

func (h *tlsHandler) ComBinlogDumpGTID(*mysql.Conn, string, uint64, replication.GTIDSet, uint16) error {
	return nil
}

func (h *tlsHandler) WarningCount(*mysql.Conn) uint16 { return 0 }

func (h *tlsHandler) Env() *vtenv.Environment { return h.env }

// certificate makes a certificate for 127.0.0.1 signed by a new CA, and
// returns the server's TLS certificate and the CA's PEM.
func certificate(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, srvKey := newKey(), newKey()
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "eddy test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "eddy test server"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srv, ca, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// TestTLSAndPassword connects over TLS to a server with a certificate
// and a user with a password (caching_sha2_password, MySQL 8's default,
// which sends the password in full over TLS), and checks that the
// connection is encrypted, that a wrong CA or password is refused, and
// that TLS is refused by a server without it.
func TestTLSAndPassword(t *testing.T) {
	cert, caPEM := certificate(t)
	dir := t.TempDir()
	caFile, otherCA := filepath.Join(dir, "ca.pem"), filepath.Join(dir, "other.pem")
	_, otherPEM := certificate(t)
	for path, data := range map[string][]byte{caFile: caPEM, otherCA: otherPEM} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		t.Fatal(err)
	}
	h := &tlsHandler{env: env}
	auth := mysql.NewAuthServerStaticWithAuthMethodDescription("", `{"alice": [{"Password": "s3cret"}]}`, 0, mysql.CachingSha2Password)
	ln, err := mysql.NewListenerWithConfig(mysql.ListenerConfig{Protocol: "tcp", Address: "127.0.0.1:0", AuthServer: auth, Handler: h, ConnReadBufferSize: 16 * 1024})
	if err != nil {
		t.Fatal(err)
	}
	ln.TLSConfig.Store(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	go ln.Accept()
	defer ln.Close()
	addr := ln.Addr().String()

	s, err := Dial(context.Background(), Config{Addr: addr, User: "alice", Password: "s3cret", CAFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(context.Background(), stmtOf(t, "SELECT 1 AS one;"))
	s.Close()
	if err != nil || !reflect.DeepEqual(formatRows(res.Columns, res.Rows), []string{"1"}) {
		t.Fatalf("over TLS: %v, %v", res, err)
	}
	if !h.overTLS.Load() {
		t.Error("the query did not come over TLS")
	}

	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"another CA", Config{Addr: addr, User: "alice", Password: "s3cret", CAFile: otherCA}, "certificate signed by unknown authority"},
		{"the system's CAs", Config{Addr: addr, User: "alice", Password: "s3cret", TLS: true}, "certificate signed by unknown authority"},
		{"a wrong password", Config{Addr: addr, User: "alice", Password: "guess", CAFile: caFile}, "Access denied for user 'alice'"},
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
