package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql" // the driver the tests connect with
)

// TestServeRefusesNonLoopback checks that eddy serve will not listen on an
// address other machines reach without a password.
func TestServeRefusesNonLoopback(t *testing.T) {
	t.Setenv(passwordEnv, "")
	code, _, errOut := runCLI(t, nil, "", "serve", "--mysql", "0.0.0.0:3307")
	if code != exitUsage || !strings.Contains(errOut, "--mysql 0.0.0.0:3307 is not a loopback address: serving it needs a password (--password or EDDY_PASSWORD)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestServeFlagErrors checks the usage errors of serve's flags, found
// before the data directory is opened.
func TestServeFlagErrors(t *testing.T) {
	junk := writeFile(t, "junk.pem", "not a certificate")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--tls-cert", junk}, "--tls-cert and --tls-key go together: give both or neither"},
		{[]string{"--tls-key", junk}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", junk, "--tls-key", junk}, "--tls-cert, --tls-key: loading the TLS certificate " + junk},
		{[]string{"--require-tls"}, "--require-tls needs --tls-cert and --tls-key"},
		{[]string{"--max-connections", "0"}, "--max-connections must be at least 1, got 0"},
		{[]string{"--max-statements-per-client", "-1"}, "--max-statements-per-client must be at least 1, got -1"},
		{[]string{"--max-statement-bytes", "10"}, "--max-statement-bytes must be a size from 1KiB to 1GiB such as 16MiB, got \"10\""},
		{[]string{"--log-level", "loud"}, "--log-level must be debug, info, warn or error, got \"loud\""},
		{[]string{"--password", "p", "--user", ""}, "--user must not be empty"},
		{[]string{"--brokers", "localhost:9092"}, "--brokers needs --cluster"},
		{[]string{"--cluster", "c"}, "--cluster needs --brokers"},
		{[]string{"--cluster", "c", "--brokers", "localhost:9092", "--cluster-partitions", "0"}, "--cluster-partitions must be from 1 to 1024, got 0"},
		{[]string{"--cluster", "c", "--brokers", "localhost:9092", "--session-timeout", "10ms"}, "--session-timeout must be at least 1s, got 10ms"},
	} {
		code, _, errOut := runCLI(t, nil, "", append([]string{"serve"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.msg)
		}
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

// serving is an eddy serve running on a goroutine.
type serving struct {
	addr        string
	out, errOut *lockedBuffer
	cancel      context.CancelFunc
	done        chan int
}

// startServe runs eddy serve on dir with args, waits for its listening
// line and returns it; it is stopped when t ends, if stop has not.
func startServe(t *testing.T, dir string, args ...string) *serving {
	t.Helper()
	s := &serving{out: &lockedBuffer{}, errOut: &lockedBuffer{}, done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	// No HTTP unless a test asks for it (a later --http wins): the
	// default port may be taken.
	args = append([]string{"--data-dir", dir, "serve", "--http", ""}, args...)
	go func() {
		s.done <- Main(ctx, args, IO{In: strings.NewReader(""), Out: s.out, Err: s.errOut})
	}()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(20 * time.Second)
	for s.addr == "" {
		if _, after, ok := strings.Cut(s.out.String(), "to MySQL clients on "); ok && strings.HasSuffix(after, "\n") {
			s.addr = strings.TrimSpace(after)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no listening line; stdout %q stderr %q", s.out.String(), s.errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s
}

// stop stops the server (as a signal does, by its context) and returns
// its exit code; later calls return it again.
func (s *serving) stop(t *testing.T) int {
	s.cancel()
	code := <-s.done
	s.done <- code
	return code
}

// TestServeServesAndStops runs eddy serve, creates a stream through it,
// leaves in the middle of a large result, stops it (as a signal does, by
// its context), and finds the stream in the data directory afterwards.
// Nothing is printed on stderr: a client that goes away is no error.
func TestServeServesAndStops(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, dir, "--mysql", "127.0.0.1:0")
	db, err := sql.Open("mysql", "root@tcp("+s.addr+")/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE STREAM kept (a BIGINT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '100000')"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rows, err := db.QueryContext(ctx, "SELECT * FROM bid")
	if err != nil || !rows.Next() {
		t.Fatalf("SELECT * FROM bid: %v", err)
	}
	cancel() // the driver closes the socket in the middle of the result
	rows.Close()
	db.Close()
	if code := s.stop(t); code != exitOK {
		t.Fatalf("serve exited %d: %s", code, s.errOut.String())
	}
	if !strings.Contains(s.out.String(), "eddy stopped") {
		t.Errorf("stdout %q", s.out.String())
	}
	if e := s.errOut.String(); e != "" {
		t.Errorf("stderr %q, want nothing", e)
	}
	code, stdout, stderr := runCLI(t, nil, "", "--data-dir", dir, "--format", "csv", "exec", "-e", "SHOW STREAMS;")
	if code != exitOK || !strings.Contains(stdout, "kept") {
		t.Errorf("after serve: exit %d, %q %q", code, stdout, stderr)
	}
}

// TestServeQuietOnDisconnects runs eddy serve as a process of its own
// (this test binary, as TestBenchHelperProcess) and checks that clients
// leaving in the middle of a large result and of a push query print
// nothing on its stderr, where vitess's logger would write, and that
// SIGTERM stops it cleanly.
func TestServeQuietOnDisconnects(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchHelperProcess$", "--",
		"--data-dir", t.TempDir(), "serve", "--mysql", "127.0.0.1:0", "--http", "")
	cmd.Env = append(os.Environ(), benchHelperEnv+"=1", passwordEnv+"=")
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatalf("no listening line; stderr %q", errOut.String())
	}
	_, addr, ok := strings.Cut(lines.Text(), "to MySQL clients on ")
	if !ok {
		t.Fatalf("listening line %q", lines.Text())
	}
	// readTimeout: rows.Close after a cancel reads the rest of a result
	// unless the driver's watcher closed the socket first; of a push query
	// there is no rest, and the read must not wait for ever (30 s: a pull
	// query under the race detector may be slow to send its rows).
	db, err := sql.Open("mysql", "root@tcp("+addr+")/?readTimeout=30s")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{"CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '100000')",
		"CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1)"} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, q := range []string{"SELECT * FROM bid", "SELECT a FROM s EMIT CHANGES"} {
		ctx, cancel := context.WithCancel(context.Background())
		rows, err := db.QueryContext(ctx, q)
		if err != nil || !rows.Next() {
			t.Fatalf("%s: %v", q, err)
		}
		cancel() // the driver closes the socket in the middle of the result
		rows.Close()
	}
	db.Close()
	time.Sleep(300 * time.Millisecond) // the server notices the push query's client within 100ms
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v; stderr %q", err, errOut.String())
	}
	if !strings.Contains(string(rest), "eddy stopped") {
		t.Errorf("stdout after the listening line %q", rest)
	}
	if e := errOut.String(); e != "" {
		t.Errorf("stderr %q, want nothing", e)
	}
}

// TestServePassword serves every interface with the password of
// EDDY_PASSWORD, warning that it travels without TLS, then with
// --password, which wins over the environment.
func TestServePassword(t *testing.T) {
	t.Setenv(passwordEnv, "from-env")
	login := func(addr, password string) error {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return err
		}
		db, err := sql.Open("mysql", "root:"+password+"@tcp(127.0.0.1:"+port+")/")
		if err != nil {
			return err
		}
		defer db.Close()
		return db.Ping()
	}
	s := startServe(t, t.TempDir(), "--mysql", "0.0.0.0:0")
	if err := login(s.addr, "from-env"); err != nil {
		t.Errorf("the environment's password: %v", err)
	}
	if err := login(s.addr, "wrong"); err == nil || !strings.Contains(err.Error(), "Error 1045") {
		t.Errorf("a wrong password: %v", err)
	}
	s.stop(t)
	warning := "WARNING: serving 0.0.0.0:0 without TLS: passwords (as scrambles an eavesdropper can attack) and all data travel in clear; give --tls-cert and --tls-key\n"
	if e := s.errOut.String(); !strings.HasPrefix(e, warning) || !strings.Contains(e, `level=WARN msg="access denied" user=root client=127.0.0.1`) {
		t.Errorf("stderr %q", e)
	}

	s = startServe(t, t.TempDir(), "--mysql", "127.0.0.1:0", "--password", "from-flag")
	if err := login(s.addr, "from-flag"); err != nil {
		t.Errorf("the flag's password: %v", err)
	}
	if err := login(s.addr, "from-env"); err == nil {
		t.Error("the environment's password got in over the flag's")
	}
}

// TestServeTLS serves with --tls-cert, --tls-key and --require-tls: a
// client trusting the certificate gets in over TLS, one without TLS is
// refused.
func TestServeTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	s := startServe(t, t.TempDir(), "--mysql", "127.0.0.1:0", "--password", "pw",
		"--tls-cert", certFile, "--tls-key", keyFile, "--require-tls")
	if err := mysql.RegisterTLSConfig("eddy-cli-test", &tls.Config{RootCAs: pool}); err != nil {
		t.Fatal(err)
	}
	defer mysql.DeregisterTLSConfig("eddy-cli-test")
	for _, tc := range []struct {
		dsn, err string
	}{
		{"root:pw@tcp(" + s.addr + ")/?tls=eddy-cli-test", ""},
		{"root:pw@tcp(" + s.addr + ")/", "Error 3159"},
	} {
		db, err := sql.Open("mysql", tc.dsn)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Ping()
		db.Close()
		if (tc.err == "" && err != nil) || (tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err))) {
			t.Errorf("%s: %v, want %q", tc.dsn, err, tc.err)
		}
	}
	if e := s.errOut.String(); strings.Contains(e, "WARNING") {
		t.Errorf("stderr %q", e)
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key,
// and returns their files and a pool trusting the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certFile = writeFile(t, "cert.pem", string(certPEM))
	keyFile = writeFile(t, "key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})))
	pool = x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	return certFile, keyFile, pool
}
