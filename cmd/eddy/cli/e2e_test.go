package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// TestEngineHugeIdentifier checks that a megabyte identifier is refused at
// its position with a short message, where it once reached the catalog and
// came back as two megabytes of error with a hex dump of a storage key.
func TestEngineHugeIdentifier(t *testing.T) {
	name := strings.Repeat("a", 1<<20)
	code, out, errOut := runEngine(t, t.TempDir(), "", "exec", "-e", "CREATE STREAM "+name+" (x BIGINT);")
	if code != 1 || out != "" {
		t.Errorf("exit %d, stdout of %d bytes", code, len(out))
	}
	want := "ERROR: syntax error at 1:15: identifier is too long: 1048576 characters (at most 256)\n"
	if len(errOut) > 500 || !strings.Contains(errOut, want) {
		t.Errorf("stderr of %d bytes, want it short and containing %q:\n%.500s", len(errOut), want, errOut)
	}
}

// TestEngineFileRoot runs eddy in a directory and checks that its file
// connectors stay in their root: the directory eddy was started in, or
// --file-root. A path outside it, or into the data directory, is refused
// at CREATE with the option's position; a link moved out after CREATE is
// refused when the file is opened; the data directory survives.
func TestEngineFileRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work, other, outside := filepath.Join(base, "work"), filepath.Join(base, "other"), filepath.Join(base, "outside")
	for _, d := range []string{work, other, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, content := range map[string]string{
		filepath.Join(work, "in.csv"):        "a\n1\n",
		filepath.Join(other, "in.csv"):       "a\n2\n",
		filepath.Join(outside, "secret.csv"): "a\n666\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(work)
	eddy := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"--timing=false", "--data-dir", "eddy-data"}, args...),
			IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
		return code, out.String(), errOut.String()
	}
	refused := func(sql, want string) {
		t.Helper()
		code, _, errOut := eddy("exec", "-e", sql)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s\nexit %d, stderr:\n%s\nwant it to contain %q", sql, code, errOut, want)
		}
	}
	refused("CREATE STREAM p (a VARCHAR) WITH (connector = 'file', path = '/etc/passwd', format = 'csv');",
		"ERROR: file connector: option path: '/etc/passwd' is outside the file root "+work+" at 1:62\n")
	refused("CREATE STREAM p (a VARCHAR) WITH (connector = 'file', path = '../outside/secret.csv');",
		"ERROR: file connector: option path: '../outside/secret.csv' is outside the file root "+work+" at 1:62\n")
	refused("CREATE SINK k AS SELECT 1 AS a WITH (connector = 'file', path = '../../x.csv');",
		"ERROR: file sink: option path: '../../x.csv' is outside the file root "+work+" at 1:65\n")
	refused("CREATE SINK k AS SELECT 1 AS a WITH (connector = 'file', path = 'eddy-data/MANIFEST', format = 'csv');",
		"ERROR: file sink: option path: 'eddy-data/MANIFEST' is inside the data directory "+filepath.Join(work, "eddy-data")+" at 1:65\n")
	refused("CREATE SINK k AS SELECT 1 AS a WITH (connector = 'file', path = 'out', format = 'csv', partition_by = 'a');\n"+
		"CREATE SINK k2 AS SELECT 1 AS a WITH (connector = 'file', path = './eddy-data/', format = 'csv', partition_by = 'a');",
		"is inside the data directory")

	// A stream over a link that stays in, then leads out.
	if err := os.Symlink("in.csv", filepath.Join(work, "cur.csv")); err != nil {
		t.Skipf("symbolic links: %v", err)
	}
	code, out, errOut := eddy("--format", "csv", "exec", "-e", "CREATE STREAM c (a BIGINT) WITH (connector = 'file', path = 'cur.csv', header = 'true');", "-e", "SELECT a FROM c;")
	if code != 0 || out != "a\n1\n" {
		t.Fatalf("reading through a link inside the root: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	os.Remove(filepath.Join(work, "cur.csv"))
	if err := os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(work, "cur.csv")); err != nil {
		t.Fatal(err)
	}
	refused("SELECT a FROM c;", "ERROR: file connector: option path: 'cur.csv' is outside the file root "+work)

	// --file-root moves the root: relative paths resolve in it, and the
	// working directory is outside it.
	code, out, errOut = eddy("--file-root", other, "--format", "csv", "exec", "-e",
		"CREATE STREAM o (a BIGINT) WITH (connector = 'file', path = 'in.csv', header = 'true');", "-e", "SELECT a FROM o;")
	if code != 0 || out != "a\n2\n" {
		t.Errorf("--file-root: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = eddy("--file-root", other, "exec", "-e",
		"CREATE STREAM w (a BIGINT) WITH (connector = 'file', path = '"+filepath.Join(work, "in.csv")+"', header = 'true');")
	if code != 1 || !strings.Contains(errOut, "is outside the file root "+other) {
		t.Errorf("--file-root, a path in the working directory: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = eddy("--file-root", filepath.Join(base, "nope"), "exec", "-e", "SHOW STREAMS;")
	if code != 1 || !strings.Contains(errOut, "file root") {
		t.Errorf("--file-root to a missing directory: exit %d, stderr %q", code, errOut)
	}

	// The data directory was never written by a sink: eddy still opens.
	code, out, errOut = eddy("--format", "csv", "exec", "-e", "SHOW STREAMS;")
	if code != 0 || !strings.Contains(out, "c,file") {
		t.Errorf("after the refusals: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestEngineExecFailsOnFailedSink checks that a script whose sink cannot
// write its file exits with status 1 at the FLUSH that finds it failed,
// naming the sink and the error, and runs nothing after it.
func TestEngineExecFailsOnFailedSink(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "out"), 0o755); err != nil { // a directory where the sink expects a file
		t.Fatal(err)
	}
	code, out, errOut := runEngine(t, t.TempDir(), "", "--file-root", root, "exec", "-e", `
CREATE STREAM s (a BIGINT);
CREATE SINK k AS SELECT a FROM s WITH (connector = 'file', path = 'out', format = 'json');
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
