package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// allTypes is a result with a column of every type, a row of values and a
// row of NULLs.
func allTypes() *engine.Result {
	ts, _ := types.ParseTimestamp("2024-01-01 00:00:01.5")
	day, _ := types.ParseDate("2024-02-29")
	return &engine.Result{
		Kind: engine.ResultRows,
		Columns: []engine.Column{
			{Name: "id", Type: types.BigIntT},
			{Name: "f", Type: types.DoubleT},
			{Name: "d", Type: types.DecimalT(10, 2)},
			{Name: "s", Type: types.VarcharT},
			{Name: "b", Type: types.BoolT},
			{Name: "day", Type: types.DateT},
			{Name: "ts", Type: types.TimestampT(3)},
			{Name: "iv", Type: types.IntervalT},
		},
		Rows: [][]types.Datum{
			{types.IntDatum(1234), types.FloatDatum(2.5), types.DecimalDatum(decimal128.FromI64(-1250)),
				types.StringDatum("a \"b\", c"), types.BoolDatum(true), types.IntDatum(int64(day)),
				types.IntDatum(ts), types.IntDatum(10 * types.MsPerSecond)},
			{types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum, types.NullDatum,
				types.NullDatum, types.NullDatum, types.NullDatum},
			{types.IntDatum(-7), types.FloatDatum(math.NaN()), types.DecimalDatum(decimal128.FromI64(5)),
				types.StringDatum(""), types.BoolDatum(false), types.IntDatum(0), types.IntDatum(0), types.IntDatum(1)},
		},
	}
}

// printTo prints res in format f without timing and returns stdout and stderr.
func printTo(t *testing.T, f outputFormat, res *engine.Result) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := &printer{out: &out, errOut: &errOut, format: f}
	if err := p.printResult(context.Background(), res, time.Now()); err != nil {
		t.Fatalf("printResult: %v", err)
	}
	return out.String(), errOut.String()
}

// TestFormatsOfAllTypes prints a result of every type in each format:
// the rows on stdout, and the status line on stdout (table) or stderr.
func TestFormatsOfAllTypes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		format    outputFormat
		out, errs string
	}{
		{"table", formatTable, `+------+------+--------+----------+-------+------------+-------------------------+--------------------------+
| id   | f    | d      | s        | b     | day        | ts                      | iv                       |
+------+------+--------+----------+-------+------------+-------------------------+--------------------------+
| 1234 |  2.5 | -12.50 | a "b", c | true  | 2024-02-29 | 2024-01-01 00:00:01.500 | INTERVAL '10' SECOND     |
| NULL | NULL |   NULL | NULL     | NULL  | NULL       | NULL                    | NULL                     |
|   -7 |  NaN |   0.05 |          | false | 1970-01-01 | 1970-01-01 00:00:00.000 | INTERVAL '1' MILLISECOND |
+------+------+--------+----------+-------+------------+-------------------------+--------------------------+
(3 rows)
`, ""},
		{"csv", formatCSV, `id,f,d,s,b,day,ts,iv
1234,2.5,-12.50,"a ""b"", c",true,2024-02-29,2024-01-01 00:00:01.500,INTERVAL '10' SECOND
,,,,,,,
-7,NaN,0.05,"",false,1970-01-01,1970-01-01 00:00:00.000,INTERVAL '1' MILLISECOND
`, "(3 rows)\n"},
		{"json", formatJSON, `{"id":1234,"f":2.5,"d":-12.50,"s":"a \"b\", c","b":true,"day":"2024-02-29","ts":"2024-01-01 00:00:01.500","iv":"INTERVAL '10' SECOND"}
{"id":null,"f":null,"d":null,"s":null,"b":null,"day":null,"ts":null,"iv":null}
{"id":-7,"f":"NaN","d":0.05,"s":"","b":false,"day":"1970-01-01","ts":"1970-01-01 00:00:00.000","iv":"INTERVAL '1' MILLISECOND"}
`, "(3 rows)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut := printTo(t, tt.format, allTypes())
			if out != tt.out {
				t.Errorf("got\n%s\nwant\n%s", out, tt.out)
			}
			if errOut != tt.errs {
				t.Errorf("stderr: %q, want %q", errOut, tt.errs)
			}
		})
	}
}

func TestTableEscapesAndWideRunes(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "s", Type: types.VarcharT}, {Name: "n", Type: types.IntT}},
		Rows: [][]types.Datum{
			{types.StringDatum("a\nb\tc"), types.IntDatum(1)},
			{types.StringDatum("日本"), types.IntDatum(22)},
		}}
	out, _ := printTo(t, formatTable, res)
	want := `+---------+----+
| s       | n  |
+---------+----+
| a\nb\tc |  1 |
| 日本    | 22 |
+---------+----+
(2 rows)
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestTableEmpty(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultRows, Columns: []engine.Column{{Name: "a", Type: types.BigIntT}}}
	out, _ := printTo(t, formatTable, res)
	if want := "+---+\n| a |\n+---+\n+---+\n(0 rows)\n"; out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestJSONStringsAndDuplicateKeys(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "a", Type: types.VarcharT}, {Name: "a", Type: types.DoubleT}, {Name: "a_2", Type: types.BigIntT}},
		Rows:    [][]types.Datum{{types.StringDatum("<\\>\n\x01é\xff"), types.FloatDatum(1e21), types.IntDatum(3)}}}
	out, _ := printTo(t, formatJSON, res)
	want := `{"a":"<\\>\n\u0001é\ufffd","a_2":1e+21,"a_2_2":3}` + "\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestResultOKAndNotices(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultOK, Tag: "INSERT 2", Notices: []string{"skipped 1 bad row"}}
	out, errOut := printTo(t, formatTable, res)
	if out != "INSERT 2\n" || errOut != "NOTICE: skipped 1 bad row\n" {
		t.Errorf("table: out %q, err %q", out, errOut)
	}
	out, errOut = printTo(t, formatJSON, res)
	if out != "" || errOut != "NOTICE: skipped 1 bad row\nINSERT 2\n" {
		t.Errorf("json: out %q, err %q", out, errOut)
	}
}

func TestPreformatted(t *testing.T) {
	res := &engine.Result{Kind: engine.ResultRows, Preformatted: true,
		Columns: []engine.Column{{Name: "plan", Type: types.VarcharT}},
		Rows:    [][]types.Datum{{types.StringDatum("Sink")}, {types.StringDatum("  └─ Scan bid")}}}
	out, _ := printTo(t, formatTable, res)
	if want := "Sink\n  └─ Scan bid\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out, _ = printTo(t, formatJSON, res)
	if want := "{\"plan\":\"Sink\"}\n{\"plan\":\"  └─ Scan bid\"}\n"; out != want {
		t.Errorf("json: got %q, want %q", out, want)
	}
}

func TestTiming(t *testing.T) {
	var out bytes.Buffer
	p := &printer{out: &out, errOut: io.Discard, timing: true}
	start := time.Now().Add(-3 * time.Millisecond)
	p.printResult(context.Background(), &engine.Result{Kind: engine.ResultOK, Tag: "FLUSH"}, start)
	p.printResult(context.Background(), &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "a", Type: types.BigIntT}}, Rows: [][]types.Datum{{types.IntDatum(1)}}}, start)
	re := regexp.MustCompile(`^FLUSH \(\d+\.\d+ ms\)\n(?s:.*)\(1 row, \d+\.\d+ ms\)\n$`)
	if !re.MatchString(out.String()) {
		t.Errorf("got %q", out.String())
	}
	for d, want := range map[time.Duration]string{
		41 * time.Microsecond: "0.041 ms", 312500 * time.Microsecond: "312.5 ms", 2414 * time.Millisecond: "2.41 s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// streamOf returns a stream yielding batches and then err (io.EOF if nil).
func streamOf(err error, batches ...[][]types.Datum) *engine.Stream {
	return engine.NewStream(func(ctx context.Context) ([][]types.Datum, error) {
		if len(batches) == 0 {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		b := batches[0]
		batches = batches[1:]
		return b, nil
	}, nil)
}

func changes() (*engine.Result, func(error) *engine.Result) {
	cols := []engine.Column{{Name: "op", Type: types.VarcharT}, {Name: "n", Type: types.BigIntT}, {Name: "name", Type: types.VarcharT}}
	mk := func(err error) *engine.Result {
		return &engine.Result{Kind: engine.ResultStream, Columns: cols, Stream: streamOf(err,
			[][]types.Datum{{types.StringDatum("+I"), types.IntDatum(1), types.StringDatum("a")}},
			[][]types.Datum{{types.StringDatum("-U"), types.IntDatum(1), types.StringDatum("a")},
				{types.StringDatum("+U"), types.IntDatum(1234567), types.StringDatum("a much longer name")}})}
	}
	return mk(nil), mk
}

// TestStreamTable checks a push query's table: columns start as wide as
// their header or a typical value, and a value that does not fit widens
// its column (a text column to a multiple of 8) and draws the header
// again above it, so that the header and the rows stay aligned.
func TestStreamTable(t *testing.T) {
	res, _ := changes()
	out, _ := printTo(t, formatTable, res)
	want := `+----+--------+------+
| op | n      | name |
+----+--------+------+
| +I |      1 | a    |
| -U |      1 | a    |
+----+---------+--------------------------+
| op | n       | name                     |
+----+---------+--------------------------+
| +U | 1234567 | a much longer name       |
+----+---------+--------------------------+
(3 changes)
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestStreamCSVAndJSON(t *testing.T) {
	res, _ := changes()
	out, errOut := printTo(t, formatCSV, res)
	if want := "op,n,name\n+I,1,a\n-U,1,a\n+U,1234567,a much longer name\n"; out != want || errOut != "(3 changes)\n" {
		t.Errorf("csv: got %q / %q", out, errOut)
	}
	res, _ = changes()
	out, _ = printTo(t, formatJSON, res)
	if !strings.HasPrefix(out, `{"op":"+I","n":1,"name":"a"}`+"\n") || strings.Count(out, "\n") != 3 {
		t.Errorf("json: got %q", out)
	}
}

func TestStreamErrorAndCancel(t *testing.T) {
	_, mk := changes()
	var out bytes.Buffer
	p := &printer{out: &out, errOut: io.Discard}
	boom := errors.New("source broke")
	if err := p.printResult(context.Background(), mk(boom), time.Now()); !errors.Is(err, boom) {
		t.Errorf("got %v, want the stream's error", err)
	}
	if !strings.HasSuffix(out.String(), "(3 changes)\n") {
		t.Errorf("rows before the error are not counted:\n%s", out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.printResult(ctx, mk(context.Canceled), time.Now()); !errors.Is(err, errCanceled) {
		t.Errorf("cancelled stream: got %v, want errCanceled", err)
	}
}

func TestPrintError(t *testing.T) {
	var errOut bytes.Buffer
	p := &printer{out: io.Discard, errOut: &errOut}
	pe := &sql.ParseError{Pos: sql.Pos{Offset: 9, Line: 3, Col: 10}, Msg: `unexpected "FORM"`, Line: "SELECT a FORM bid"}
	p.printError(pe, "q.sql:3")
	want := "q.sql:3: ERROR: " + pe.Error() + "\nSELECT a FORM bid\n         ^\n"
	if errOut.String() != want {
		t.Errorf("got\n%q\nwant\n%q", errOut.String(), want)
	}
	errOut.Reset()
	p.printError(errors.New("stream \"x\" does not exist"), "")
	if errOut.String() != "ERROR: stream \"x\" does not exist\n" {
		t.Errorf("got %q", errOut.String())
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "CSV", "json"} {
		if _, err := parseFormat(s); err != nil {
			t.Errorf("parseFormat(%q): %v", s, err)
		}
	}
	if _, err := parseFormat("xml"); err == nil {
		t.Error("parseFormat(xml) succeeded")
	}
}
