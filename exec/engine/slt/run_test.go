package slt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// answer is what the fake executor returns for one statement.
type answer struct {
	res *engine.Result
	err error
}

// fakeExec answers statements from a table keyed by their whitespace-
// normalized text.
type fakeExec struct {
	answers    map[string]answer
	calls      []string
	positions  []sql.Pos
	restarts   int
	restartErr error
	closed     bool
}

func (f *fakeExec) Exec(ctx context.Context, text string, pos sql.Pos) (*engine.Result, error) {
	key := normalize(text)
	f.calls = append(f.calls, key)
	f.positions = append(f.positions, pos)
	a, ok := f.answers[key]
	if !ok {
		return &engine.Result{Kind: engine.ResultOK, Tag: "OK"}, nil
	}
	if key == "PANIC" {
		panic("boom")
	}
	return a.res, a.err
}

func (f *fakeExec) Restart(ctx context.Context) error {
	f.restarts++
	return f.restartErr
}

func (f *fakeExec) Close() error { f.closed = true; return nil }

func runFake(t *testing.T, f *fakeExec, text string, cfg Config) *Report {
	t.Helper()
	recs, err := parse("f.slt", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runRecords(context.Background(), "f.slt", recs, f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rowsResult(cols []engine.Column, rows ...[]types.Datum) *engine.Result {
	return &engine.Result{Kind: engine.ResultRows, Columns: cols, Rows: rows}
}

var intText = []engine.Column{{Name: "a", Type: types.BigIntT}, {Name: "b", Type: types.VarcharT}}

func TestRunStatementsAndQueries(t *testing.T) {
	f := &fakeExec{answers: map[string]answer{
		"SELECT a, b FROM t": {res: rowsResult(intText,
			[]types.Datum{types.IntDatum(2), types.StringDatum("y")},
			[]types.Datum{types.IntDatum(1), types.StringDatum("")})},
		"DROP STREAM nope": {err: errors.New(`stream "nope" does not exist`)},
	}}
	rep := runFake(t, f, `statement ok
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
`, Config{})
	if !rep.OK() || rep.Passed != 5 {
		t.Fatalf("report:\n%s", rep)
	}
	if f.positions[0] != (sql.Pos{Offset: 13, Line: 2, Col: 1}) || f.positions[3].Line != 11 {
		t.Errorf("positions %+v", f.positions)
	}
}

func TestRunFailures(t *testing.T) {
	f := &fakeExec{answers: map[string]answer{
		"SELECT a, b FROM t": {res: rowsResult(intText, []types.Datum{types.IntDatum(1), types.StringDatum("x")})},
		"DROP STREAM nope":   {err: errors.New(`stream "nope" does not exist`)},
		"CREATE STREAM t":    {res: &engine.Result{Kind: engine.ResultOK, Tag: "CREATE STREAM"}},
	}}
	rep := runFake(t, f, `statement ok
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
`, Config{})
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

func TestRunControlFlow(t *testing.T) {
	f := &fakeExec{answers: map[string]answer{}}
	var progress bytes.Buffer
	rep := runFake(t, f, `statement ok
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
`, Config{Progress: &progress, Verbose: true})
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

func TestRunRestartFailureStops(t *testing.T) {
	f := &fakeExec{restartErr: errors.New("disk on fire")}
	rep := runFake(t, f, "restart\n\nstatement ok\nSELECT 1\n", Config{})
	if rep.Failed != 1 || len(f.calls) != 0 || !strings.Contains(rep.Failures[0].Reason, "disk on fire") {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunFailFast(t *testing.T) {
	f := &fakeExec{answers: map[string]answer{"SELECT 1": {err: errors.New("no")}}}
	rep := runFake(t, f, "statement ok\nSELECT 1\n\nstatement ok\nSELECT 2\n", Config{FailFast: true})
	if rep.Failed != 1 || rep.Passed != 0 || len(f.calls) != 1 {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunUnsupportedStreamingRecords(t *testing.T) {
	rep := runFake(t, &fakeExec{}, "insert bid\n1,2\n\nwatermark bid 2024-01-01 00:00:00\n\ncheckpoint\n", Config{})
	if rep.Failed != 3 {
		t.Fatalf("report:\n%s", rep)
	}
	for i, name := range []string{"insert", "watermark", "checkpoint"} {
		if want := name + " records are not supported yet"; rep.Failures[i].Reason != want {
			t.Errorf("failure %d: %q, want %q", i, rep.Failures[i].Reason, want)
		}
	}
}

func TestRunPanicIsAFailure(t *testing.T) {
	f := &fakeExec{answers: map[string]answer{"PANIC": {}}}
	rep := runFake(t, f, "statement ok\nPANIC\n\nstatement ok\nSELECT 1\n", Config{})
	if rep.Failed != 1 || rep.Passed != 1 || !strings.Contains(rep.Failures[0].Reason, "panic: boom") {
		t.Fatalf("report:\n%s", rep)
	}
}

// fakeStream returns a Stream that yields batches, then err (io.EOF if nil).
func fakeStream(err error, batches ...[][]types.Datum) (*engine.Stream, *bool) {
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
	return engine.NewStream(next, func() { *closed = true }), closed
}

func TestRunPushQuery(t *testing.T) {
	op := func(s string) types.Datum { return types.StringDatum(s) }
	cols := []engine.Column{{Name: "op", Type: types.VarcharT}, {Name: "n", Type: types.BigIntT}, {Name: "ts", Type: types.TimestampT(3)}}
	ts, _ := types.ParseTimestamp("2024-01-01 00:00:01")
	st, closed := fakeStream(nil,
		[][]types.Datum{{op("+I"), types.IntDatum(1), types.IntDatum(ts)}},
		[][]types.Datum{{op("-U"), types.IntDatum(1), types.IntDatum(ts)}, {op("+U"), types.IntDatum(2), types.IntDatum(ts)}})
	failing, _ := fakeStream(errors.New("source broke"), [][]types.Datum{{op("+I"), types.IntDatum(1), types.IntDatum(ts)}})
	failing2, _ := fakeStream(errors.New("source broke"))
	f := &fakeExec{answers: map[string]answer{
		"SELECT n FROM broken2 EMIT CHANGES": {res: &engine.Result{Kind: engine.ResultStream, Columns: cols, Stream: failing2}},
		"SELECT n, ts FROM v EMIT CHANGES":   {res: &engine.Result{Kind: engine.ResultStream, Columns: cols, Stream: st}},
		"SELECT n FROM broken EMIT CHANGES":  {res: &engine.Result{Kind: engine.ResultStream, Columns: cols, Stream: failing}},
	}}
	rep := runFake(t, f, `query TIT
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
`, Config{})
	if rep.Passed != 2 || rep.Failed != 1 || !*closed {
		t.Fatalf("closed=%v report:\n%s", *closed, rep)
	}
	if !strings.Contains(rep.Failures[0].Reason, "source broke") {
		t.Errorf("failure: %s", rep.Failures[0].Reason)
	}
}

func TestRunRecordTimeout(t *testing.T) {
	blocking := engine.NewStream(func(ctx context.Context) ([][]types.Datum, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, nil)
	f := &fakeExec{answers: map[string]answer{
		"SELECT * FROM s EMIT CHANGES": {res: &engine.Result{Kind: engine.ResultStream, Columns: []engine.Column{{Name: "op", Type: types.VarcharT}}, Stream: blocking}},
	}}
	rep := runFake(t, f, "query T\nSELECT * FROM s EMIT CHANGES\n----\n\nstatement ok\nSELECT 1\n", Config{RecordTimeout: 10 * time.Millisecond})
	if rep.Failed != 1 || rep.Passed != 1 || !strings.Contains(rep.Failures[0].Reason, "deadline exceeded") {
		t.Fatalf("report:\n%s", rep)
	}
}

func TestRunCancelled(t *testing.T) {
	recs, err := parse("f.slt", strings.NewReader("statement ok\nSELECT 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runRecords(ctx, "f.slt", recs, &fakeExec{}, Config{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}
