package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eddysql/eddy/cmd/eddy/client"
	"github.com/eddysql/eddy/cmd/eddy/server"
	"github.com/eddysql/eddy/exec/engine"
)

// startEddyServer serves a new engine in a temporary data directory on a
// free loopback port, as eddy serve does, until t ends, and returns its
// address.
func startEddyServer(t *testing.T) string {
	t.Helper()
	eng, err := engine.Open(context.Background(), engine.Config{DataDir: t.TempDir(), FileRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.Listen(server.Config{Addr: "127.0.0.1:0", Engine: eng, Version: "test"})
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() {
		srv.Close()
		if err := eng.Close(); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
	})
	return srv.Addr()
}

// connectScript is run by TestConnectPrintsWhatTheEngineDoes embedded and
// through eddy serve. It ends with an error, on the second line of a
// statement that starts in the middle of a line, since exec stops there.
const connectScript = `CREATE STREAM s (a BIGINT, i INT, b VARCHAR, c DOUBLE, d DECIMAL(10,2), d0 DECIMAL(20,0),
  t TIMESTAMP(3), t0 TIMESTAMP, day DATE, f BOOLEAN);
INSERT INTO s VALUES
  (1, 10, 'x', 1.5, 2.25, 123, '2024-01-01 00:00:01.500', '2024-01-01 10:00:00', '2024-02-29', true),
  (2, -7, 'a "quoted", long value', -0.0, -99999999.99, -1, '0001-01-01 00:00:00', '9999-12-31 23:59:59', '0001-01-01', false),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
SELECT * FROM s ORDER BY a;
SELECT a, CAST('Infinity' AS DOUBLE) AS inf, NULL AS n, b AS b, b AS b FROM s WHERE a < 3 ORDER BY a;
SELECT a FROM s WHERE a > 100;
CREATE MATERIALIZED VIEW v AS SELECT f, COUNT(*) AS n FROM s GROUP BY f;
FLUSH;
SELECT * FROM v ORDER BY n, f;
CREATE STREAM IF NOT EXISTS s (a BIGINT);
SHOW STREAMS;
DESCRIBE s;
SET parallelism = 2;
EXPLAIN SELECT b, COUNT(*) FROM s GROUP BY b;
SELECT a, f FROM s EMIT CHANGES LIMIT 2;
DROP MATERIALIZED VIEW v; SELECT
  nope FROM s;
`

// TestConnectPrintsWhatTheEngineDoes runs a script with eddy exec on a data
// directory and with eddy exec --connect through eddy serve, in every
// format, and checks that both print the same, on standard output and
// standard error, and exit alike.
func TestConnectPrintsWhatTheEngineDoes(t *testing.T) {
	script := writeFile(t, "script.sql", connectScript)
	for _, format := range []string{"table", "csv", "json"} {
		code, out, errOut := runEngine(t, t.TempDir(), "", "--format", format, "exec", "-f", script)
		rcode, rout, rerrOut := runEngine(t, t.TempDir(), "", "--format", format, "exec", "--connect", startEddyServer(t), "-f", script)
		if code != exitFailure || !strings.Contains(errOut, "script.sql:20: ERROR: unknown column 'nope' at 20:3\n  nope FROM s;\n  ^\n") {
			t.Fatalf("%s, embedded: exit %d, stderr:\n%s", format, code, errOut)
		}
		if rcode != code || rout != out || rerrOut != errOut {
			t.Errorf("%s: --connect printed (exit %d)\n%s\n%s\nthe engine (exit %d)\n%s\n%s", format, rcode, rout, rerrOut, code, out, errOut)
		}
	}
}

// TestConnectExecInputs runs exec --connect with -e and -f in order, with
// standard input (-f -), and the shell with piped input, on one server:
// statements of one invocation share a session, each invocation is a
// session of its own, and an error names its script and line.
func TestConnectExecInputs(t *testing.T) {
	addr := startEddyServer(t)
	file := writeFile(t, "two.sql", "INSERT INTO s VALUES (2);\n")
	code, out, errOut := runEngine(t, t.TempDir(), "", "--format", "csv", "exec", "--connect", addr,
		"-e", "CREATE STREAM s (a BIGINT); SET parallelism = 1;", "-f", file, "-e", "INSERT INTO s VALUES (3);", "-e", "SELECT COUNT(*) AS n FROM s;")
	if code != exitOK || out != "n\n2\n" || errOut != "CREATE STREAM\nSET\nINSERT 1\nINSERT 1\n(1 row)\n" {
		t.Errorf("-e and -f: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runEngine(t, t.TempDir(), "SELECT a FROM s ORDER BY a;\nSELECT nope FROM s;\n", "--format", "csv", "exec", "--connect", addr, "-f", "-")
	if code != exitFailure || out != "a\n2\n3\n" || errOut != "(2 rows)\n<stdin>:2: ERROR: unknown column 'nope' at 2:8\nSELECT nope FROM s;\n       ^\n" {
		t.Errorf("-f -: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runEngine(t, t.TempDir(), "INSERT INTO s VALUES (4);\nSELECT MAX(a) AS m FROM s;\n", "--connect", addr)
	if code != exitOK || out != "INSERT 1\n+---+\n| m |\n+---+\n| 4 |\n+---+\n(1 row)\n" || errOut != "" {
		t.Errorf("the shell with piped input: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestConnectRefused checks that --connect to an address where nothing
// listens fails at once with a clear error and exit status 1.
func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	for _, args := range [][]string{{"exec", "--connect", addr, "-e", "SHOW STREAMS;"}, {"--connect", addr}} {
		code, out, errOut := runEngine(t, t.TempDir(), "SHOW STREAMS;", args...)
		want := "ERROR: connecting to eddy at " + addr + ": dial tcp " + addr + ": connect: connection refused (is eddy serve running there?)\n"
		if code != exitFailure || out != "" || errOut != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, code, out, errOut, want)
		}
	}
}

// TestConnectFlags checks the flags around --connect: the login flags
// need it, the flags that configure an engine in this process go without
// it, and the password comes from EDDY_PASSWORD unless --password gives
// one.
func TestConnectFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"exec", "--user", "bob", "-e", "SELECT 1;"}, "--user needs --connect"},
		{[]string{"--tls"}, "--tls needs --connect"},
		{[]string{"exec", "--password", "x", "-e", "SELECT 1;"}, "--password needs --connect"},
		{[]string{"--parallelism", "2", "exec", "--connect", "127.0.0.1:1", "-e", "SELECT 1;"}, "--parallelism configures an engine in this process"},
		{[]string{"--checkpoint-interval", "1s", "shell", "--connect", "127.0.0.1:1"}, "--checkpoint-interval configures an engine in this process"},
		{[]string{"--watermark-alignment", "1s", "shell", "--connect", "127.0.0.1:1"}, "--watermark-alignment configures an engine in this process"},
		{[]string{"serve", "--connect", "127.0.0.1:1"}, "unknown flag: --connect"},
	} {
		code, _, errOut := runCLI(t, &fakeSession{}, "", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}

	password := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		a := &app{io: IO{In: strings.NewReader(""), Out: &out, Err: &errOut}, out: &syncWriter{w: &out}}
		a.openSession = (&fakeSession{}).open
		cmd := a.rootCommand()
		cmd.SetArgs(append([]string{"--timing=false", "exec", "--connect", "127.0.0.1:1", "-e", "SELECT 1;"}, args...))
		cmd.SetOut(&out)
		cmd.SetErr(&errOut)
		if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "connecting to eddy") {
			t.Fatalf("%q: %v", args, err)
		}
		return a.conn.password
	}
	t.Setenv(passwordEnv, "from-env")
	if got := password(); got != "from-env" {
		t.Errorf("password %q, want the environment's", got)
	}
	if got := password("--password", "given"); got != "given" {
		t.Errorf("password %q, want --password's", got)
	}
	if got := password("--password", ""); got != "" {
		t.Errorf("password %q, want --password's empty one", got)
	}
}

// TestConnectWatchHereInsertThere runs a push query in a shell connected
// to eddy serve, inserts rows with eddy exec --connect from another
// session, and checks that the shell prints them as they come, that
// Ctrl-C stops the query, and that the shell's session then runs the next
// statement with its settings.
func TestConnectWatchHereInsertThere(t *testing.T) {
	addr := startEddyServer(t)
	if code, _, errOut := runEngine(t, t.TempDir(), "", "exec", "--connect", addr, "-e", "CREATE STREAM s (a BIGINT);"); code != exitOK {
		t.Fatalf("creating the stream: %s", errOut)
	}
	sess, err := client.Dial(context.Background(), client.Config{Addr: addr, User: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	interrupts := make(chan os.Signal, 1)
	sh := &shell{
		r: &runner{sess: sess, p: &printer{out: out, errOut: errOut}},
		lines: &fakeLines{items: lines(
			"SET parallelism = 3;",
			"SELECT a FROM s EMIT CHANGES;",
			"EXPLAIN SELECT a, COUNT(*) FROM s GROUP BY a;",
		)},
		out:        out,
		interrupts: interrupts,
	}
	done := make(chan error, 1)
	go func() { done <- sh.loop(context.Background()) }()

	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in the shell's output:\n%s\nstderr:\n%s", what, out.String(), errOut.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("| op | a      |\n+----+--------+\n") // the push query is running
	if code, _, stderr := runEngine(t, t.TempDir(), "", "exec", "--connect", addr, "-e", "INSERT INTO s VALUES (1), (2);"); code != exitOK {
		t.Fatalf("inserting: %s", stderr)
	}
	waitFor("| +I |      2 |\n")
	interrupts <- syscall.SIGINT
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the shell did not go on after Ctrl-C")
	}
	if !strings.Contains(out.String(), "| +I |      1 |\n| +I |      2 |\n+----+--------+\n(2 changes)\n") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if errOut.String() != "ERROR: canceled by user\n" {
		t.Errorf("stderr %q", errOut.String())
	}
	if !strings.Contains(out.String(), "parallelism=3") {
		t.Errorf("the statement after the push query did not run, or lost the session's SET:\n%s", out.String())
	}
}
