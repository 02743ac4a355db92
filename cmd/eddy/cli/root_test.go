package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// fakeAnswer is what fakeSession returns for a statement. res is a func
// so that every run gets a fresh result (streams are consumed).
type fakeAnswer struct {
	res func(ctx context.Context) *engine.Result
	err error
}

// fakeSession answers statements by their text (without the ';').
type fakeSession struct {
	mu          sync.Mutex
	answers     map[string]fakeAnswer
	ran         []string
	opened      int
	closed      int
	interactive bool
}

func (f *fakeSession) Execute(ctx context.Context, stmt sql.Stmt) (*engine.Result, error) {
	text := stmt.Source().Text()
	f.mu.Lock()
	f.ran = append(f.ran, text)
	a, ok := f.answers[text]
	f.mu.Unlock()
	if !ok {
		return &engine.Result{Kind: engine.ResultOK, Tag: "OK"}, nil
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.res(ctx), nil
}

func (f *fakeSession) open(ctx context.Context, interactive bool) (session, func() error, error) {
	f.opened++
	f.interactive = interactive
	return f, func() error { f.closed++; return nil }, nil
}

func rowsOf(cols []engine.Column, rows ...[]types.Datum) func(context.Context) *engine.Result {
	return func(context.Context) *engine.Result {
		return &engine.Result{Kind: engine.ResultRows, Columns: cols, Rows: rows}
	}
}

// runCLI runs eddy with args (timing off) on a fake session and returns
// the exit code, stdout and stderr.
func runCLI(t *testing.T, f *fakeSession, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	stdio := IO{In: strings.NewReader(stdin), Out: &out, Err: &errOut}
	args = append([]string{"--timing=false", "--data-dir", t.TempDir()}, args...)
	var open func(context.Context, bool) (session, func() error, error)
	if f != nil {
		open = f.open
	}
	code := mainWith(context.Background(), args, stdio, open, false)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExecRunsFilesAndStatementsInOrder(t *testing.T) {
	f := &fakeSession{}
	a := writeFile(t, "a.sql", "CREATE STREAM s (a BIGINT);\n-- a comment\nINSERT INTO s VALUES (1);\n")
	b := writeFile(t, "b.sql", "FLUSH;\nSHOW STREAMS") // the last statement has no ';'
	code, out, errOut := runCLI(t, f, "", "exec", "-e", "SET parallelism = 2;", "-f", a, "-e", "SHOW TABLES; SHOW SINKS;", "-f", b)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := []string{"SET parallelism = 2", "CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1)",
		"SHOW TABLES", "SHOW SINKS", "FLUSH", "SHOW STREAMS"}
	if strings.Join(f.ran, "|") != strings.Join(want, "|") {
		t.Errorf("ran %q, want %q", f.ran, want)
	}
	if out != strings.Repeat("OK\n", len(want)) {
		t.Errorf("stdout %q", out)
	}
	if f.opened != 1 || f.closed != 1 || f.interactive {
		t.Errorf("opened %d, closed %d, interactive %v", f.opened, f.closed, f.interactive)
	}
}

func TestExecStopsAtFirstError(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{
		"DROP STREAM\n  nope": {err: errors.New(`stream "nope" does not exist`)},
	}}
	q := writeFile(t, "q.sql", "SHOW STREAMS;\n\n  DROP STREAM\n  nope;\nSHOW TABLES;\n")
	code, _, errOut := runCLI(t, f, "", "exec", "-f", q, "-e", "SHOW SINKS;")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := q + `:3: ERROR: stream "nope" does not exist` + "\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if strings.Join(f.ran, "|") != "SHOW STREAMS|DROP STREAM\n  nope" {
		t.Errorf("ran %q", f.ran)
	}
}

func TestExecParseErrorHasLineAndSnippet(t *testing.T) {
	f := &fakeSession{}
	q := writeFile(t, "q.sql", "SHOW STREAMS;\nSHOW TABLES;\n\nDROP BAD;\nSHOW SINKS;\n")
	code, _, errOut := runCLI(t, f, "", "exec", "-f", q)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], q+":4: ERROR: ") || lines[1] != "DROP BAD;" || !strings.HasSuffix(lines[2], "^") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if len(f.ran) != 2 {
		t.Errorf("ran %q: the statements before the bad one run, the ones after do not", f.ran)
	}
}

func TestExecReadsStdinAndNamesScripts(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{"SHOW SINKS": {err: errors.New("boom")}}}
	code, _, errOut := runCLI(t, f, "SHOW STREAMS;\nSHOW TABLES;\n", "exec", "-f", "-", "-e", "FLUSH;", "-e", "FLUSH;\n\nSHOW SINKS;")
	if code != 1 || errOut != "-e #2:3: ERROR: boom\n" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if strings.Join(f.ran, "|") != "SHOW STREAMS|SHOW TABLES|FLUSH|FLUSH|SHOW SINKS" {
		t.Errorf("ran %q", f.ran)
	}
}

func TestExecMissingFileRunsNothing(t *testing.T) {
	f := &fakeSession{}
	code, _, errOut := runCLI(t, f, "", "exec", "-e", "SHOW STREAMS;", "-f", filepath.Join(t.TempDir(), "nope.sql"))
	if code != 1 || !strings.HasPrefix(errOut, "ERROR: ") || !strings.Contains(errOut, "nope.sql") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if f.opened != 0 {
		t.Error("the engine was opened although a script could not be read")
	}
}

func TestPipedInput(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{
		"SHOW STREAMS": {res: rowsOf([]engine.Column{{Name: "name", Type: types.VarcharT}}, []types.Datum{types.StringDatum("bid")})},
	}}
	code, out, errOut := runCLI(t, f, "SHOW STREAMS;\n")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "+------+\n| name |\n+------+\n| bid  |\n+------+\n(1 row)\n"; out != want {
		t.Errorf("stdout\n%s\nwant\n%s", out, want)
	}
	if f.interactive {
		t.Error("piped input ran in an interactive session")
	}
	// `eddy shell` without a terminal behaves the same.
	code, _, _ = runCLI(t, f, "SHOW STREAMS;", "shell")
	if code != 0 || len(f.ran) != 2 {
		t.Errorf("shell with piped input: exit %d, ran %q", code, f.ran)
	}
}

func TestPipedInputStopsAtFirstError(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{"FLUSH": {err: errors.New("nope")}}}
	code, _, errOut := runCLI(t, f, "SHOW STREAMS;\nFLUSH;\nSHOW TABLES;\n")
	if code != 1 || errOut != "<stdin>:2: ERROR: nope\n" || len(f.ran) != 2 {
		t.Errorf("exit %d, stderr %q, ran %q", code, errOut, f.ran)
	}
}

func TestFormatFlag(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{
		"SHOW STREAMS": {res: rowsOf([]engine.Column{{Name: "name", Type: types.VarcharT}, {Name: "n", Type: types.BigIntT}},
			[]types.Datum{types.StringDatum("bid"), types.IntDatum(3)})},
	}}
	code, out, errOut := runCLI(t, f, "", "--format", "json", "exec", "-e", "SHOW STREAMS; FLUSH;")
	if code != 0 || out != `{"name":"bid","n":3}`+"\n" || errOut != "(1 row)\nOK\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, out, _ = runCLI(t, f, "", "exec", "--format=csv", "-e", "SHOW STREAMS;")
	if out != "name,n\nbid,3\n" {
		t.Errorf("csv: %q", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--nope"},
		{"--format", "xml", "exec", "-e", "SHOW STREAMS;"},
		{"--parallelism", "-1", "exec", "-e", "SHOW STREAMS;"},
		{"--autoscale", "sometimes", "exec", "-e", "SHOW STREAMS;"},
		{"--heap-huge-pages", "lots", "exec", "-e", "SHOW STREAMS;"},
		{"exec"},
		{"exec", "stray.sql"},
		{"frobnicate"},
		{"slt"},
		{"version", "extra"},
		{"shell", "extra"},
	} {
		f := &fakeSession{}
		code, out, errOut := runCLI(t, f, "", args...)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stdout %q, stderr %q)", args, code, out, errOut)
		}
		if !strings.Contains(errOut, "Run 'eddy --help' for usage.") {
			t.Errorf("%q: stderr %q", args, errOut)
		}
		if f.opened != 0 {
			t.Errorf("%q: the engine was opened", args)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	code, out, _ := runCLI(t, &fakeSession{}, "", "--help")
	if code != 0 || !strings.Contains(out, "exec") || !strings.Contains(out, "slt") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

// TestProcessReservesHeapForHugePages runs eddy as its own process would
// (MainProcess): eddy version then says what --heap-huge-pages did, where
// Main, as tests run it, leaves the process's heap alone.
func TestProcessReservesHeapForHugePages(t *testing.T) {
	var out, errOut bytes.Buffer
	stdio := IO{In: strings.NewReader(""), Out: &out, Err: &errOut}
	if code := mainWith(context.Background(), []string{"--heap-huge-pages", "64MiB", "version"}, stdio, nil, true); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String(), "huge pages for the heap: the first 6") && !strings.Contains(out.String(), "huge pages for the heap: not asked for (") {
		t.Errorf("stdout %q", out.String())
	}
	code, plain, _ := runCLI(t, nil, "", "version")
	if code != 0 || strings.Contains(plain, "huge pages") {
		t.Errorf("Main reserved the heap: exit %d, stdout %q", code, plain)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "", "version")
	if code != 0 || !strings.HasPrefix(out, "eddy ") || !strings.Contains(out, "\ngo   go1.") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestSLTCommandExitCodes(t *testing.T) {
	skipped := writeFile(t, "skipped.slt", "onlyif postgres\nstatement ok\nSELECT 1\n\nhalt\n\nstatement ok\nSELECT 2\n")
	code, out, errOut := runCLI(t, nil, "", "slt", skipped)
	if code != 0 || !strings.Contains(out, "skipped.slt: 0 passed, 0 failed, 1 skipped, halted") {
		t.Errorf("skipped file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bad := writeFile(t, "bad.slt", "statement ok\nSELECT 1\n\nfrobnicate\n")
	code, _, errOut = runCLI(t, nil, "", "slt", skipped, bad)
	if code != 1 || !strings.Contains(errOut, "bad.slt:4: unknown record") {
		t.Errorf("malformed file: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, nil, "", "slt", filepath.Join(t.TempDir(), "missing.slt"))
	if code != 1 || !strings.Contains(errOut, "missing.slt") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

func TestSLTFilesExpandsDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.slt", "a.slt", "c.txt"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	files, err := sltFiles([]string{dir})
	if err != nil || len(files) != 2 || filepath.Base(files[0]) != "a.slt" || filepath.Base(files[1]) != "b.slt" {
		t.Errorf("files %q, err %v", files, err)
	}
	if _, err := sltFiles([]string{t.TempDir()}); err == nil {
		t.Error("an empty directory is not an error")
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "512kb": 512000, "1 GiB": 1 << 30, "100": 100, "2.5KiB": 2560} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-1MB", "1PB"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("parseBytes(%q) succeeded", bad)
		}
	}
}
