package slt

import (
	"errors"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) []record {
	t.Helper()
	recs, err := parse("t.slt", strings.NewReader(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return recs
}

func TestParseRecordKinds(t *testing.T) {
	const text = `# name: test/basic.slt
# description: every record kind
hash-threshold 8

statement ok
CREATE STREAM s (a BIGINT)

statement error does not exist
SELECT * FROM nope

statement error
SELECT bad

query IT rowsort label-1
SELECT a,
       b
FROM s
----
1 x
2 y

query R
SELECT 1.5
----

query error no such
SELECT x

restart

checkpoint

watermark bid 2024-01-01 00:00:10.000

insert bid
1,2,3
4,5,6

halt
`
	recs := mustParse(t, text)
	kinds := []recordKind{statementRecord, statementRecord, statementRecord, queryRecord, queryRecord, queryRecord,
		restartRecord, checkpointRecord, watermarkRecord, insertRecord, haltRecord}
	if len(recs) != len(kinds) {
		t.Fatalf("got %d records, want %d: %+v", len(recs), len(kinds), recs)
	}
	for i, k := range kinds {
		if recs[i].kind != k {
			t.Errorf("record %d: kind %d, want %d", i, recs[i].kind, k)
		}
	}
	if r := recs[0]; r.line != 5 || r.sql != "CREATE STREAM s (a BIGINT)" || r.sqlLine != 6 || r.wantErr {
		t.Errorf("statement ok: %+v", r)
	}
	if off := strings.Index(text, "CREATE STREAM"); recs[0].sqlOffset != off {
		t.Errorf("sql offset %d, want %d", recs[0].sqlOffset, off)
	}
	if r := recs[1]; !r.wantErr || r.errRe == nil || r.errRe.String() != "does not exist" {
		t.Errorf("statement error: %+v", r)
	}
	if r := recs[2]; !r.wantErr || r.errRe != nil {
		t.Errorf("statement error without regex: %+v", r)
	}
	q := recs[3]
	if q.types != "IT" || q.sort != rowSort || q.label != "label-1" || q.line != 14 || q.sqlLine != 15 {
		t.Errorf("query header: %+v", q)
	}
	if q.sql != "SELECT a,\n       b\nFROM s" {
		t.Errorf("query sql %q", q.sql)
	}
	if strings.Join(q.expected, "|") != "1 x|2 y" {
		t.Errorf("query expected %q", q.expected)
	}
	if r := recs[4]; r.types != "R" || r.sort != noSort || len(r.expected) != 0 {
		t.Errorf("query with empty result: %+v", r)
	}
	if r := recs[5]; !r.wantErr || r.errRe.String() != "no such" {
		t.Errorf("query error: %+v", r)
	}
	if r := recs[8]; r.target != "bid" || r.arg != "2024-01-01 00:00:10.000" {
		t.Errorf("watermark: %+v", r)
	}
	if r := recs[9]; r.target != "bid" || strings.Join(r.rows, "|") != "1,2,3|4,5,6" {
		t.Errorf("insert: %+v", r)
	}
}

func TestParseConditions(t *testing.T) {
	recs := mustParse(t, `skipif eddy
statement ok
SELECT 1

onlyif eddy
statement ok
SELECT 2

onlyif postgres
statement ok
SELECT 3

skipif mysql
query I
SELECT 4
----
4

onlyif eddy
skipif eddy
halt
`)
	want := []bool{true, false, true, false, true}
	for i, w := range want {
		if recs[i].skip != w {
			t.Errorf("record %d (line %d): skip=%v, want %v", i, recs[i].line, recs[i].skip, w)
		}
	}
}

func TestParseControlSortMode(t *testing.T) {
	recs := mustParse(t, `control sortmode rowsort

query I
SELECT 1
----
1

query I nosort
SELECT 1
----
1
`)
	if recs[0].sort != rowSort || recs[1].sort != noSort {
		t.Errorf("sort modes %d %d, want rowsort then nosort", recs[0].sort, recs[1].sort)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		msg  string
	}{
		{"statement maybe\nSELECT 1\n", 1, "unsupported statement kind"},
		{"\n\nfrobnicate\n", 3, `unknown record "frobnicate"`},
		{"query IX\nSELECT 1\n", 1, "unknown type letter"},
		{"query I sorted\nSELECT 1\n", 1, "unknown sort mode"},
		{"statement error (unclosed\nSELECT 1\n", 1, "bad error regex"},
		{"statement ok\n\nSELECT 1\n", 1, "record has no SQL"},
		{"statement ok\nSELECT 1\n----\n1\n", 3, "no result section"},
		{"query error x\nSELECT 1\n----\n1\n", 3, "no result section"},
		{"query\nSELECT 1\n", 1, "needs type letters"},
		{"skipif\nstatement ok\nSELECT 1\n", 1, "needs an engine name"},
		{"restart now\n", 1, "takes no arguments"},
		{"watermark bid\n", 1, "needs a source and a timestamp"},
		{"control mode x\n", 1, "unsupported control record"},
	} {
		_, err := parse("t.slt", strings.NewReader(tc.text))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want an ParseError", tc.text, err)
			continue
		}
		if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) || !strings.HasPrefix(pe.Error(), "t.slt:") {
			t.Errorf("%q: got %q at line %d, want %q at line %d", tc.text, pe.Msg, pe.Line, tc.msg, tc.line)
		}
	}
}

func TestParseCRLF(t *testing.T) {
	recs := mustParse(t, "query T\r\nSELECT 'a'\r\n----\r\na\r\n\r\nstatement ok\r\nSELECT 1\r\n")
	if len(recs) != 2 || recs[0].sql != "SELECT 'a'" || recs[0].expected[0] != "a" || recs[1].sql != "SELECT 1" {
		t.Errorf("CRLF file parsed as %+v", recs)
	}
	if recs[1].sqlOffset != strings.Index("query T\r\nSELECT 'a'\r\n----\r\na\r\n\r\nstatement ok\r\nSELECT 1\r\n", "SELECT 1") {
		t.Errorf("offset %d is not the byte offset of the SQL", recs[1].sqlOffset)
	}
}
