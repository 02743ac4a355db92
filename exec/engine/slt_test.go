package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/sql"
)

// TestSLT runs every end-to-end sqllogictest file, each on a fresh engine.
func TestSLT(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "slt", "*.slt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no testdata/slt/*.slt files yet")
	}
	// Results must not depend on parallelism: the whole corpus runs at 1, 2
	// and 4 (statements that SET parallelism override it for what follows).
	for _, p := range []int{1, 2, 4} {
		for _, file := range files {
			name := fmt.Sprintf("p%d/%s", p, strings.TrimSuffix(filepath.Base(file), ".slt"))
			t.Run(name, func(t *testing.T) {
				cfg := RunConfig{
					Engine:        Config{DataDir: t.TempDir(), Parallelism: p},
					RecordTimeout: 2 * time.Minute,
				}
				rep, err := RunSLT(context.Background(), file, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !rep.OK() {
					t.Fatal(rep.String())
				}
			})
		}
	}
}

// sltAnswer is what the fake executor returns for one statement.
type sltAnswer struct {
	res *Result
	err error
}

// fakeSLTExec answers statements from a table keyed by their whitespace-
// normalized text.
type fakeSLTExec struct {
	answers    map[string]sltAnswer
	calls      []string
	positions  []sql.Pos
	restarts   int
	restartErr error
	closed     bool
}

func (f *fakeSLTExec) Exec(ctx context.Context, text string, pos sql.Pos) (*Result, error) {
	key := normalizeSLT(text)
	f.calls = append(f.calls, key)
	f.positions = append(f.positions, pos)
	a, ok := f.answers[key]
	if !ok {
		return &Result{Kind: ResultOK, Tag: "OK"}, nil
	}
	if key == "PANIC" {
		panic("boom")
	}
	return a.res, a.err
}

func (f *fakeSLTExec) Restart(ctx context.Context) error {
	f.restarts++
	return f.restartErr
}

func (f *fakeSLTExec) Close() error { f.closed = true; return nil }

func runFakeSLT(t *testing.T, f *fakeSLTExec, text string, cfg RunConfig) *SLTReport {
	t.Helper()
	recs, err := parseSLT("f.slt", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runSLTRecords(context.Background(), "f.slt", recs, f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func sltRowsResult(cols []Column, rows ...[]types.Datum) *Result {
	return &Result{Kind: ResultRows, Columns: cols, Rows: rows}
}

var sltIntText = []Column{{"a", types.BigIntT}, {"b", types.VarcharT}}

func TestRunSLTStatementsAndQueries(t *testing.T) {
	f := &fakeSLTExec{answers: map[string]sltAnswer{
		"SELECT a, b FROM t": {res: sltRowsResult(sltIntText,
			[]types.Datum{types.IntDatum(2), types.StringDatum("y")},
			[]types.Datum{types.IntDatum(1), types.StringDatum("")})},
		"DROP STREAM nope": {err: errors.New(`stream "nope" does not exist`)},
	}}
	rep := runFakeSLT(t, f, `statement ok
CREATE STREAM t (a BIGINT, b VARCHAR)

statement error does not exist
DROP STREAM nope

statement error
DROP STREAM nope

query IT rowsort
SELECT a, b
FROM t
----
1 (empty)
2 y

query IT
SELECT a, b FROM t
----
2
y
1
(empty)
`, RunConfig{})
	if !rep.OK() || rep.Passed != 5 {
		t.Fatalf("report:\n%s", rep)
	}
	if f.positions[0] != (sql.Pos{Offset: 13, Line: 2, Col: 1}) || f.positions[3].Line != 11 {
		t.Errorf("positions %+v", f.positions)
	}
}

func TestRunSLTFailures(t *testing.T) {
	f := &fakeSLTExec{answers: map[string]sltAnswer{
		"SELECT a, b FROM t": {res: sltRowsResult(sltIntText, []types.Datum{types.IntDatum(1), types.StringDatum("x")})},
		"DROP STREAM nope":   {err: errors.New(`stream "nope" does not exist`)},
		"CREATE STREAM t":    {res: &Result{Kind: ResultOK, Tag: "CREATE STREAM"}},
	}}
	rep := runFakeSLT(t, f, `statement ok
DROP STREAM nope

statement error no such thing
DROP STREAM nope

statement error
SELECT a, b FROM t

query IT
SELECT a, b FROM t
----
1 y

query I
SELECT a, b FROM t
----
1 x

query I
CREATE STREAM t
----
`, RunConfig{})
	if rep.Failed != 6 || rep.Passed != 0 {
		t.Fatalf("report:\n%s", rep)
	}
	wants := []struct {
		line int
		msg  string
	}{
		{1, `unexpected error: stream "nope" does not exist`},
		{4, `error "stream \"nope\" does not exist" does not match /no such thing/`},
		{7, "expected an error, but the statement succeeded"},
		{10, "result mismatch: expected 1 row, got 1"},
		{15, `the query returned 2 columns, but the type string "I" has 1`},
		{20, `expected rows, but the statement returned "CREATE STREAM"`},
	}
	for i, w := range wants {
		fl := rep.Failures[i]
		if fl.Line != w.line || fl.Reason != w.msg || fl.File != "f.slt" {
			t.Errorf("failure %d: %s:%d: %q, want line %d %q", i, fl.File, fl.Line, fl.Reason, w.line, w.msg)
		}
	}
	s := rep.Failures[3].String()
	for _, want := range []string{"f.slt:10: result mismatch", "SELECT a, b FROM t", "expected: 1 y", "got:      1 x"} {
		if !strings.Contains(s, want) {
			t.Errorf("mismatch report lacks %q:\n%s", want, s)
		}
	}
}

func TestRunSLTControlFlow(t *testing.T) {
	f := &fakeSLTExec{answers: map[string]sltAnswer{}}
	var progress bytes.Buffer
	rep := runFakeSLT(t, f, `statement ok
SELECT 1

skipif eddy
statement ok
SELECT 2

onlyif eddy
statement ok
SELECT 3

onlyif duckdb
halt

restart

statement ok
SELECT 4

halt

statement ok
SELECT 5
`, RunConfig{Progress: &progress, Verbose: true})
	if rep.Passed != 4 || rep.Skipped != 1 || rep.Failed != 0 || !rep.Halted {
		t.Fatalf("report:\n%s", rep)
	}
	if strings.Join(f.calls, ";") != "SELECT 1;SELECT 3;SELECT 4" || f.restarts != 1 {
		t.Errorf("calls %q, restarts %d", f.calls, f.restarts)
	}
	if !strings.Contains(progress.String(), "f.slt:5: skipped") || !strings.Contains(progress.String(), "f.slt:9: ok") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestRunSLTRestartFailureStops(t *testing.T) {
	f := &fakeSLTExec{restartErr: errors.New("disk on fire")}
	rep := runFakeSLT(t, f, "restart\n\nstatement ok\nSELECT 1\n", RunConfig{})
	if rep.Failed != 1 || len(f.calls) != 0 || !strings.Contains(rep.Failures[0].Reason, "disk on fire") {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunSLTFailFast(t *testing.T) {
	f := &fakeSLTExec{answers: map[string]sltAnswer{"SELECT 1": {err: errors.New("no")}}}
	rep := runFakeSLT(t, f, "statement ok\nSELECT 1\n\nstatement ok\nSELECT 2\n", RunConfig{FailFast: true})
	if rep.Failed != 1 || rep.Passed != 0 || len(f.calls) != 1 {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunSLTUnsupportedStreamingRecords(t *testing.T) {
	rep := runFakeSLT(t, &fakeSLTExec{}, "insert bid\n1,2\n\nwatermark bid 2024-01-01 00:00:00\n\ncheckpoint\n", RunConfig{})
	if rep.Failed != 3 {
		t.Fatalf("report:\n%s", rep)
	}
	for i, name := range []string{"insert", "watermark", "checkpoint"} {
		if want := name + " records are not supported yet"; rep.Failures[i].Reason != want {
			t.Errorf("failure %d: %q, want %q", i, rep.Failures[i].Reason, want)
		}
	}
}

func TestRunSLTPanicIsAFailure(t *testing.T) {
	f := &fakeSLTExec{answers: map[string]sltAnswer{"PANIC": {}}}
	rep := runFakeSLT(t, f, "statement ok\nPANIC\n\nstatement ok\nSELECT 1\n", RunConfig{})
	if rep.Failed != 1 || rep.Passed != 1 || !strings.Contains(rep.Failures[0].Reason, "panic: boom") {
		t.Fatalf("report:\n%s", rep)
	}
}

// fakeSLTStream returns a Stream that yields batches, then err (io.EOF if nil).
func fakeSLTStream(err error, batches ...[][]types.Datum) (*Stream, *bool) {
	closed := new(bool)
	next := func(ctx context.Context) ([][]types.Datum, error) {
		if len(batches) == 0 {
			if err == nil {
				return nil, io.EOF
			}
			return nil, err
		}
		b := batches[0]
		batches = batches[1:]
		return b, nil
	}
	return NewStream(next, func() { *closed = true }), closed
}

func TestRunSLTPushQuery(t *testing.T) {
	op := func(s string) types.Datum { return types.StringDatum(s) }
	cols := []Column{{"op", types.VarcharT}, {"n", types.BigIntT}, {"ts", types.TimestampT(3)}}
	ts, _ := types.ParseTimestamp("2024-01-01 00:00:01")
	st, closed := fakeSLTStream(nil,
		[][]types.Datum{{op("+I"), types.IntDatum(1), types.IntDatum(ts)}},
		[][]types.Datum{{op("-U"), types.IntDatum(1), types.IntDatum(ts)}, {op("+U"), types.IntDatum(2), types.IntDatum(ts)}})
	failing, _ := fakeSLTStream(errors.New("source broke"), [][]types.Datum{{op("+I"), types.IntDatum(1), types.IntDatum(ts)}})
	failing2, _ := fakeSLTStream(errors.New("source broke"))
	f := &fakeSLTExec{answers: map[string]sltAnswer{
		"SELECT n FROM broken2 EMIT CHANGES": {res: &Result{Kind: ResultStream, Columns: cols, Stream: failing2}},
		"SELECT n, ts FROM v EMIT CHANGES":   {res: &Result{Kind: ResultStream, Columns: cols, Stream: st}},
		"SELECT n FROM broken EMIT CHANGES":  {res: &Result{Kind: ResultStream, Columns: cols, Stream: failing}},
	}}
	rep := runFakeSLT(t, f, `query TIT
SELECT n, ts FROM v EMIT CHANGES
----
+I 1 2024-01-01 00:00:01.000
-U 1 2024-01-01 00:00:01.000
+U 2 2024-01-01    00:00:01.000

query TIT
SELECT n FROM broken EMIT CHANGES
----

statement error source broke
SELECT n FROM broken2 EMIT CHANGES
`, RunConfig{})
	if rep.Passed != 2 || rep.Failed != 1 || !*closed {
		t.Fatalf("closed=%v report:\n%s", *closed, rep)
	}
	if !strings.Contains(rep.Failures[0].Reason, "source broke") {
		t.Errorf("failure: %s", rep.Failures[0].Reason)
	}
}

func TestRunSLTRecordTimeout(t *testing.T) {
	blocking := NewStream(func(ctx context.Context) ([][]types.Datum, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	f := &fakeSLTExec{answers: map[string]sltAnswer{
		"SELECT * FROM s EMIT CHANGES": {res: &Result{Kind: ResultStream, Columns: []Column{{"op", types.VarcharT}}, Stream: blocking}},
	}}
	rep := runFakeSLT(t, f, "query T\nSELECT * FROM s EMIT CHANGES\n----\n\nstatement ok\nSELECT 1\n", RunConfig{RecordTimeout: 10 * time.Millisecond})
	if rep.Failed != 1 || rep.Passed != 1 || !strings.Contains(rep.Failures[0].Reason, "deadline exceeded") {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunSLTCancelled(t *testing.T) {
	recs, err := parseSLT("f.slt", strings.NewReader("statement ok\nSELECT 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runSLTRecords(ctx, "f.slt", recs, &fakeSLTExec{}, RunConfig{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestShiftPos(t *testing.T) {
	base := sql.Pos{Offset: 100, Line: 10, Col: 5}
	if got := sltShiftPos(base, sql.Pos{Offset: 3, Line: 1, Col: 4}); got != (sql.Pos{Offset: 103, Line: 10, Col: 8}) {
		t.Errorf("same line: %+v", got)
	}
	if got := sltShiftPos(base, sql.Pos{Offset: 20, Line: 3, Col: 2}); got != (sql.Pos{Offset: 120, Line: 12, Col: 2}) {
		t.Errorf("later line: %+v", got)
	}
	if got := sltPosAt("ab\ncd", 4); got != (sql.Pos{Offset: 4, Line: 2, Col: 2}) {
		t.Errorf("sltPosAt: %+v", got)
	}
}

func TestParseScript(t *testing.T) {
	base := sql.Pos{Offset: 40, Line: 10, Col: 1}
	stmts, err := sltParseScript("CREATE STREAM s (a BIGINT);\n  SHOW STREAMS", base)
	if err != nil || len(stmts) != 2 {
		t.Fatalf("got %d statements, %v", len(stmts), err)
	}
	if got := stmts[1].Source().Text(); got != "SHOW STREAMS" {
		t.Errorf("second statement %q", got)
	}
	_, err = sltParseScript("SHOW STREAMS;\nDROP BAD;", base)
	var pe sql.PosError
	if !errors.As(err, &pe) || pe.Position().Line != 11 {
		t.Fatalf("got %v, want a positioned error on line 11", err)
	}
	if want := "DROP BAD;"; !strings.HasPrefix(sltErrorText(err), err.Error()+"\n"+want+"\n") {
		t.Errorf("the error text lacks the snippet: %q", sltErrorText(err))
	}
}
