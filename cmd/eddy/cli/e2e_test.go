package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// The tests in this file drive the real engine through the command line.
// They fail until the engine executes statements.

// runEngine runs eddy on the real engine with the data directory dir.
func runEngine(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	stdio := IO{In: strings.NewReader(stdin), Out: &out, Err: &errOut}
	args = append([]string{"--timing=false", "--data-dir", dir}, args...)
	code := Main(context.Background(), args, stdio)
	return code, out.String(), errOut.String()
}

const viewTable = `+---+---+
| a | b |
+---+---+
| 1 | x |
| 2 | y |
+---+---+
(2 rows)
`

func TestEngineExecAndRestart(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runEngine(t, dir, "", "exec", "-e", `
CREATE STREAM s (a BIGINT, b VARCHAR);
INSERT INTO s VALUES (2, 'y'), (1, 'x');
CREATE MATERIALIZED VIEW v AS SELECT a, b FROM s;
FLUSH;
SELECT a, b FROM v ORDER BY a;`)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.HasPrefix(out, "CREATE STREAM\n") || !strings.HasSuffix(out, viewTable) {
		t.Errorf("stdout:\n%s", out)
	}
	// A new process on the same data directory sees the view.
	code, out, errOut = runEngine(t, dir, "", "exec", "-e", "FLUSH; SELECT a, b FROM v ORDER BY a;")
	if code != 0 || out != "FLUSH\n"+viewTable {
		t.Errorf("after restart: exit %d, stdout\n%s\nstderr %q", code, out, errOut)
	}
}

func TestEnginePipedInputFails(t *testing.T) {
	code, out, errOut := runEngine(t, t.TempDir(), "SHOW STREAMS;\nDROP STREAM nope;\nSHOW TABLES;\n")
	if code != 1 || !strings.HasPrefix(errOut, "<stdin>:2: ERROR: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestEnginePushQueryEndsInScripts(t *testing.T) {
	code, out, errOut := runEngine(t, t.TempDir(), "", "--format", "csv", "exec", "-e", `
CREATE STREAM s (a BIGINT);
INSERT INTO s VALUES (1), (2);
SELECT a FROM s EMIT CHANGES;`)
	if code != 0 || errOut != "CREATE STREAM\nINSERT 2\n(2 changes)\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if out != "op,a\n+I,1\n+I,2\n" {
		t.Errorf("stdout %q", out)
	}
}

func TestEngineSLT(t *testing.T) {
	pass := writeFile(t, "pass.slt", `statement ok
CREATE STREAM s (a BIGINT, b VARCHAR)

statement ok
INSERT INTO s VALUES (2, 'y'), (1, 'x')

statement ok
CREATE MATERIALIZED VIEW v AS SELECT a, b FROM s

statement ok
FLUSH

restart

statement ok
FLUSH

query IT rowsort
SELECT a, b FROM v
----
1 x
2 y

statement error unknown stream
DROP STREAM nope
`)
	code, out, errOut := runEngine(t, t.TempDir(), "", "slt", pass)
	if code != 0 || !strings.Contains(out, "pass.slt: 8 passed, 0 failed, 0 skipped") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	fail := writeFile(t, "fail.slt", `statement ok
CREATE STREAM s (a BIGINT)

statement ok
CREATE MATERIALIZED VIEW v AS SELECT a FROM s

statement ok
INSERT INTO s VALUES (2)

statement ok
FLUSH

query I
SELECT a FROM v
----
3
`)
	code, out, _ = runEngine(t, t.TempDir(), "", "slt", fail)
	if code != 1 || !strings.Contains(out, "fail.slt:13: result mismatch") || !strings.Contains(out, "expected: 3\n    got:      2") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

// TestEngineExecFailsOnFailedSink checks that a script whose sink cannot
// write its file exits with status 1 at the FLUSH that finds it failed,
// naming the sink and the error, and runs nothing after it.
func TestEngineExecFailsOnFailedSink(t *testing.T) {
	dir := t.TempDir() // a directory where the sink expects a file
	code, out, errOut := runEngine(t, t.TempDir(), "", "exec", "-e", `
CREATE STREAM s (a BIGINT);
CREATE SINK k AS SELECT a FROM s WITH (connector = 'file', path = '`+dir+`', format = 'json');
INSERT INTO s VALUES (1);
FLUSH;
SHOW STREAMS;`)
	if code != 1 || !strings.HasPrefix(errOut, "-e #1:5: ERROR: sink k failed: ") || !strings.Contains(errOut, "is a directory") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(out, "FLUSH") || strings.Contains(out, "name") {
		t.Errorf("the script went on after the failed FLUSH: stdout %q", out)
	}
}
