package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eddysql/eddy/exec/connector/conntest"
)

func TestCSV(t *testing.T) {
	all := []string{"b BOOLEAN", "ti TINYINT", "si SMALLINT", "i INT", "bi BIGINT", "f FLOAT", "d DOUBLE",
		"dec DECIMAL(10,2)", "s VARCHAR", "dt DATE", "ts TIMESTAMP(3)", "ts0 TIMESTAMP"}
	runReadCases(t, "f.csv", FormatCSV, []readCase{
		{
			name: "every type",
			cols: all, header: true,
			content: "b,ti,si,i,bi,f,d,dec,s,dt,ts,ts0\n" +
				"true,-128,32767,-2147483648,9223372036854775807,1.5,-2.25e3,12345678.99,hello,2024-02-29,2024-01-01 00:00:01.123,2024-01-01 00:00:01.999\n" +
				"F,127,-32768,2147483647,-9223372036854775808,0,1e-3,-0.5,\"a,b\",1970-01-01,1704067201123,1704067201999\n" +
				"1, 5 , -7,0,+42,inf,-0,.05,  spaced  ,1999-12-31,2024-01-01T00:00:01Z,2024-01-01 00:00:01.5\n",
			want: []string{
				"true | -128 | 32767 | -2147483648 | 9223372036854775807 | 1.5 | -2250 | 12345678.99 | hello | 2024-02-29 | 2024-01-01 00:00:01.123 | 2024-01-01 00:00:02",
				"false | 127 | -32768 | 2147483647 | -9223372036854775808 | 0 | 0.001 | -0.50 | a,b | 1970-01-01 | 2024-01-01 00:00:01.123 | 2024-01-01 00:00:02",
				"true | 5 | -7 | 0 | 42 | Infinity | -0 | 0.05 |   spaced   | 1999-12-31 | 2024-01-01 00:00:01.000 | 2024-01-01 00:00:02",
			},
		},
		{
			name: "NULL and the empty string",
			cols: []string{"a BIGINT", "s VARCHAR", "t VARCHAR", "ts TIMESTAMP(3)"},
			content: "1,,\"\",\n" +
				"\"2\",\"\",,\"2024-01-01 00:00:00\"\n",
			want: []string{"1 | NULL | (empty) | NULL", "2 | (empty) | NULL | 2024-01-01 00:00:00.000"},
		},
		{
			name: "header matched by name, any case, extra fields ignored",
			cols: []string{"price BIGINT", "Name VARCHAR"}, header: true,
			content: "ID,NAME,extra,Price\n1,ann,x,10\n2,bob,y,20\n",
			want:    []string{"10 | ann", "20 | bob"},
		},
		{
			name: "header with an exact match preferred to a folded one",
			cols: []string{"a BIGINT"}, header: true,
			content: "A,a\n1,2\n",
			want:    []string{"2"},
		},
		{
			name: "header record must have the header's field count",
			cols: []string{"a BIGINT"}, header: true,
			content:  "a,b\n1,2\n3\n4,5,6\n7,8\n",
			want:     []string{"1", "7"},
			wantBad:  2,
			wantWarn: []string{"f.csv:3: expected 2 fields, got 1", "f.csv:4: expected 2 fields, got 3"},
		},
		{
			name:    "positional",
			cols:    []string{"a BIGINT", "b VARCHAR"},
			content: "1,x\n2,y\n",
			want:    []string{"1 | x", "2 | y"},
		},
		{
			name:     "positional field count",
			cols:     []string{"a BIGINT", "b VARCHAR"},
			content:  "1,x\n2\n3,y,z\n4,w\n",
			want:     []string{"1 | x", "4 | w"},
			wantBad:  2,
			wantWarn: []string{"f.csv:2: expected 2 fields, got 1", "f.csv:3: expected 2 fields, got 3"},
		},
		{
			name: "CRLF and no final newline",
			cols: []string{"a BIGINT", "b VARCHAR"}, header: true,
			content: "a,b\r\n1,x\r\n2,\"y\"\r\n3,",
			want:    []string{"1 | x", "2 | y", "3 | NULL"},
		},
		{
			name:    "quoted field at the end without a newline",
			cols:    []string{"a BIGINT", "b VARCHAR"},
			content: "1,\"x\"",
			want:    []string{"1 | x"},
		},
		{
			name: "quoted newlines keep line numbers right",
			cols: []string{"a BIGINT", "b VARCHAR"}, header: true,
			content:  "a,b\n1,\"two\nlines\"\n2,\"three\r\nmore\nlines\"\nx,bad\n3,\"say \"\"hi\"\"\"\n",
			want:     []string{"1 | two\nlines", "2 | three\r\nmore\nlines", "3 | say \"hi\""},
			wantBad:  1,
			wantWarn: []string{`f.csv:7: column a: cannot parse "x" as BIGINT`},
		},
		{
			name:     "a bad record spanning lines is reported at its first line",
			cols:     []string{"a BIGINT", "b VARCHAR"},
			content:  "1,a\nz,\"multi\nline\"\n2,b\n",
			want:     []string{"1 | a", "2 | b"},
			wantBad:  1,
			wantWarn: []string{`f.csv:2: column a: cannot parse "z" as BIGINT`},
		},
		{
			name:    "quotes inside an unquoted field are kept",
			cols:    []string{"a VARCHAR", "b BIGINT"},
			content: "5\"6,1\n",
			want:    []string{"5\"6 | 1"},
		},
		{
			name:     "text after a closing quote",
			cols:     []string{"a VARCHAR", "b BIGINT"},
			content:  "\"x\"y,1\n\"ok\",2\n",
			want:     []string{"ok | 2"},
			wantBad:  1,
			wantWarn: []string{`f.csv:1: malformed CSV: unexpected 'y' after a closing quote`},
		},
		{
			name:     "unterminated quote at the end",
			cols:     []string{"a VARCHAR", "b BIGINT"},
			content:  "ok,1\n\"open,2\nmore\n",
			want:     []string{"ok | 1"},
			wantBad:  1,
			wantWarn: []string{`f.csv:2: malformed CSV: unterminated quoted field`},
		},
		{
			name: "bad values",
			cols: []string{"n TINYINT", "d DECIMAL(5,2)", "b BOOLEAN", "dt DATE", "ts TIMESTAMP(3)"},
			content: "1,1.00,true,2024-01-01,2024-01-01 00:00:00\n" +
				"128,1.00,true,2024-01-01,2024-01-01 00:00:00\n" +
				"1,1000.00,true,2024-01-01,2024-01-01 00:00:00\n" +
				"1,1.00,yes,2024-01-01,2024-01-01 00:00:00\n" +
				"1,1.00,true,2023-02-29,2024-01-01 00:00:00\n" +
				"1,1.00,true,2024-01-01,2024-01-01 24:00:00\n" +
				"1.5,1.00,true,2024-01-01,2024-01-01 00:00:00\n" +
				"2,999.995,false,2024-01-02,0\n",
			want:    []string{"1 | 1.00 | true | 2024-01-01 | 2024-01-01 00:00:00.000"},
			wantBad: 7,
			wantWarn: []string{
				`f.csv:2: column n: value "128" out of range for TINYINT`,
				`f.csv:3: column d: value "1000.00" out of range for DECIMAL(5,2)`,
				`f.csv:4: column b: cannot parse "yes" as BOOLEAN`,
				`f.csv:5: column dt: cannot parse "2023-02-29" as DATE`,
				`f.csv:6: column ts: cannot parse "2024-01-01 24:00:00" as TIMESTAMP(3)`,
				`f.csv: more than 5 bad rows; further bad rows are only counted (bad_rows)`,
			},
		},
		{
			// Integer columns take digits only, as PostgreSQL's COPY and
			// MySQL's strict mode read them: 1e3 and 1.0 are bad rows.
			name: "integers take digits only",
			cols: []string{"a BIGINT", "i INT"},
			content: "1,2\n" +
				"1e3,2\n" +
				"1.0,2\n" +
				"1,2E1\n" +
				"+7, -8 \n" +
				"99999999999999999999,1\n" +
				"1.5,2\n",
			want:    []string{"1 | 2", "7 | -8"},
			wantBad: 5,
			wantWarn: []string{
				`f.csv:2: column a: cannot parse "1e3" as BIGINT`,
				`f.csv:3: column a: cannot parse "1.0" as BIGINT`,
				`f.csv:4: column i: cannot parse "2E1" as INT`,
				`f.csv:6: column a: value "99999999999999999999" out of range for BIGINT`,
				`f.csv:7: column a: cannot parse "1.5" as BIGINT`,
			},
		},
		{
			name:    "bad floats and a long value",
			cols:    []string{"d DOUBLE", "f FLOAT"},
			content: "abc,1\n1e400,1\n1,1e39\n" + strings.Repeat("9", 70) + "x,1\n1,3.4e38\n",
			want:    []string{"1 | 3.4e+38"},
			wantBad: 4,
			wantWarn: []string{
				`f.csv:1: column d: cannot parse "abc" as DOUBLE`,
				`f.csv:2: column d: value "1e400" out of range for DOUBLE`,
				`f.csv:3: column f: value "1e39" out of range for FLOAT`,
				`f.csv:4: column d: cannot parse "` + strings.Repeat("9", 64) + `"... as DOUBLE`,
			},
		},
		{
			name:     "NOT NULL",
			cols:     []string{"a BIGINT NOT NULL", "b VARCHAR NOT NULL"},
			content:  "1,\"\"\n,x\n2,\n",
			want:     []string{"1 | (empty)"},
			wantBad:  2,
			wantWarn: []string{"f.csv:2: column a: NULL in a NOT NULL column", "f.csv:3: column b: NULL in a NOT NULL column"},
		},
		{
			name:     "invalid UTF-8",
			cols:     []string{"s VARCHAR"},
			content:  "ok\n\xff\xfe\n",
			want:     []string{"ok"},
			wantBad:  1,
			wantWarn: []string{`f.csv:2: column s: value "\xff\xfe" is not valid UTF-8`},
		},
		{
			name: "timestamps: epoch milliseconds and rounding to fsp",
			cols: []string{"t0 TIMESTAMP", "t1 TIMESTAMP(1)", "t3 DATETIME(3)"},
			content: "1704067201999,1704067201999,1704067201999\n" +
				"-1,-1,-1\n" +
				"2024-01-01 00:00:01.987654,2024-01-01 00:00:01.987654,2024-01-01 00:00:01.987654\n" +
				"2024-01-01,2024-01-01 10:20,2024-1-2 3:04:05\n",
			want: []string{
				"2024-01-01 00:00:02 | 2024-01-01 00:00:02.0 | 2024-01-01 00:00:01.999",
				"1970-01-01 00:00:00 | 1970-01-01 00:00:00.0 | 1969-12-31 23:59:59.999",
				"2024-01-01 00:00:02 | 2024-01-01 00:00:02.0 | 2024-01-01 00:00:01.987",
				"2024-01-01 00:00:00 | 2024-01-01 10:20:00.0 | 2024-01-02 03:04:05.000",
			},
		},
		{
			name:    "blank lines are skipped when a record has several fields",
			cols:    []string{"a BIGINT", "b BIGINT"},
			content: "\n1,2\n\n\r\n3,4\n\n",
			want:    []string{"1 | 2", "3 | 4"},
		},
		{
			name:    "an empty line is a NULL row for one column",
			cols:    []string{"a BIGINT"},
			content: "1\n\n2\n",
			want:    []string{"1", "NULL", "2"},
		},
		{
			name: "byte-order mark", header: true,
			cols:    []string{"a BIGINT"},
			content: "\xEF\xBB\xBFa\n1\n",
			want:    []string{"1"},
		},
		{
			name: "delimiter", delim: '|',
			cols:    []string{"a BIGINT", "b VARCHAR"},
			content: "1|x,y\n2|\"p|q\"\n",
			want:    []string{"1 | x,y", "2 | p|q"},
		},
		{
			name: "empty file with a header", header: true,
			cols: []string{"a BIGINT"},
		},
	})
}

func TestCSVHeaderErrors(t *testing.T) {
	tests := []struct {
		name, content string
		cols          []string
		want          string
	}{
		{"missing column", "a,b\n1,2\n", []string{"a BIGINT", "price BIGINT"},
			"column price is missing from the CSV header (a, b)"},
		{"ambiguous column", "Price,PRICE\n1,2\n", []string{"price BIGINT"},
			"column price matches header fields Price and PRICE"},
		{"malformed header", "\"a\"x,b\n1,2\n", []string{"a BIGINT"},
			"malformed header: malformed CSV: unexpected 'x' after a closing quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fileAt(t, "f.csv", tt.content, Config{Format: FormatCSV, Header: true, Columns: cols(t, tt.cols...)})
			path := filepath.Join(cfg.Root.Dir(), cfg.Path)
			err := newSource(t, cfg).Open(context.Background(), newTestEnv(t).Env)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open error = %v; want one naming %s and containing %q", err, path, tt.want)
			}
		})
	}
}

func TestOnErrorFail(t *testing.T) {
	env := newTestEnv(t)
	cs := cols(t, "id BIGINT", "price BIGINT")
	s := openSource(t, fileAt(t, "f.csv", "id,price\n1,10\n2,abc\n3,30\n",
		Config{Format: FormatCSV, Header: true, OnError: OnErrorFail, Columns: cs}), env)
	const want = `f.csv:3: column price: cannot parse "abc" as BIGINT`
	rows, err := drain(t, s, typesOf(cs))
	assertLines(t, "rows before the error", rows, []string{"1 | 10"})
	if err == nil || err.Error() != want {
		t.Fatalf("error after the rows = %v, want %q", err, want)
	}
	for range 2 { // the error is sticky
		_, err = s.Next(context.Background())
		var re *RowError
		if !errors.As(err, &re) || err.Error() != want {
			t.Fatalf("Next error = %v; want *RowError %q", err, want)
		}
		if re.Path != "f.csv" || re.Line != 3 || re.Column != "price" || re.Msg != `cannot parse "abc" as BIGINT` {
			t.Fatalf("RowError = %+v", *re)
		}
	}
	if len(env.warnings) != 0 {
		t.Errorf("warnings = %q; want none with on_error = 'fail'", env.warnings)
	}
	if got := env.Metrics.BadRows.Load(); got != 1 {
		t.Errorf("bad rows = %d, want 1", got)
	}
}

func TestMissingFile(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Config{Path: "nope.csv", Root: conntest.RootAt(t, dir), Format: FormatCSV, Columns: cols(t, "a BIGINT")})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Open(context.Background(), newTestEnv(t).Env)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir+"/nope.csv") {
		t.Fatalf("Open error = %v; want a not-exist error naming %s/nope.csv", err, dir)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenDirectory(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := newSource(t, Config{Path: dir, Root: conntest.RootAt(t, dir), Format: FormatCSV, Columns: cols(t, "a BIGINT")})
	if err := s.Open(context.Background(), newTestEnv(t).Env); err == nil || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Fatalf("Open error = %v, want one saying %s is a directory", err, dir)
	}
}

func TestBatchesAndLifecycle(t *testing.T) {
	cs := cols(t, "n BIGINT NOT NULL", "s VARCHAR")
	cfg := fileAt(t, "f.csv", "1,a\n2,b\n3,c\n4,d\n5,e\n6,f\n7,g\n", Config{Format: FormatCSV, BatchSize: 3, Columns: cs})
	if err := newSource(t, cfg).Close(); err != nil { // safe without Open, and idempotent
		t.Fatal(err)
	}
	s := newSource(t, cfg)
	if _, err := s.Next(context.Background()); err == nil {
		t.Fatal("Next before Open succeeded")
	}
	if err := s.Open(context.Background(), newTestEnv(t).Env); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for {
		c, err := s.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sch := c.Batch.Schema()
		if sch.Field(0).Nullable || !sch.Field(1).Nullable || sch.Field(0).Name != "n" || sch.Field(1).Type.ID() != cs[1].Type.Arrow().ID() {
			t.Errorf("schema = %s", sch)
		}
		sizes = append(sizes, c.NumRows())
		c.Batch.Release()
	}
	if got := fmt.Sprint(sizes); got != "[3 3 1]" {
		t.Errorf("batch sizes = %v, want [3 3 1]", sizes)
	}
	if _, err := s.Next(context.Background()); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
	if err := s.Wait(context.Background()); err != nil {
		t.Errorf("Wait on a bounded source = %v", err)
	}
	for range 2 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Next(context.Background()); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("Next after Close = %v, want an error", err)
	}
}

func TestContextCanceled(t *testing.T) {
	s := openSource(t, fileAt(t, "f.csv", "1\n2\n", Config{Format: FormatCSV, Columns: cols(t, "a BIGINT")}), newTestEnv(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next = %v, want context.Canceled", err)
	}
}
