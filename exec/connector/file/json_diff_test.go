package file

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// diffSpecs are the columns the parser is compared with the reference in:
// every kind, a NOT NULL one, two names differing in case only, and one
// filled from a path.
var diffSpecs = []string{"b BOOLEAN", "ti TINYINT", "i INT", "bi BIGINT", "f FLOAT", "d DOUBLE",
	"dec DECIMAL(10,2)", "s VARCHAR", "j JSON", "dt DATE", "ts TIMESTAMP(3)", "t0 TIMESTAMP",
	"nn BIGINT NOT NULL", "Name VARCHAR", "NAME BIGINT", "p BIGINT"}

// diffParsers returns the parser and the reference parser over diffSpecs,
// each with columns of its own.
func diffParsers(t testing.TB) (*jsonParser, *refParser) {
	cs := cols(t, diffSpecs...)
	cs[len(cs)-1].Path = "$.o.p"
	mk := func() []column {
		out := make([]column, len(cs))
		for j, c := range cs {
			col, err := newColumn(c)
			if err != nil {
				t.Fatal(err)
			}
			out[j] = col
		}
		return out
	}
	return newJSONParser(mk()), newRefParser(mk())
}

// compareParse parses line with both parsers and fails t when their
// verdicts or, for a good row, their cells differ. It reports whether the
// row was good.
func compareParse(t testing.TB, p *jsonParser, ref *refParser, line []byte) bool {
	t.Helper()
	got, want := make([]cell, len(p.cols)), make([]cell, len(p.cols))
	gf, wf := p.parse(line, got), ref.parse(line, want)
	if gf.code != wf.code || gf.col != wf.col || gf.msg != wf.msg || gf.raw != wf.raw || !bytes.Equal(gf.value, wf.value) {
		t.Fatalf("parse(%q) = fault %+v (value %q), reference %+v (value %q)", line, gf, gf.value, wf, wf.value)
	}
	if gf.code != faultNone {
		return false
	}
	for j := range got {
		g, w := &got[j], &want[j]
		same := g.null == w.null && g.exact == w.exact
		if same && !g.null {
			switch p.cols[j].kind {
			case kindBool, kindInt, kindDate, kindTimestamp:
				same = g.i == w.i
			case kindFloat:
				same = math.Float64bits(g.f) == math.Float64bits(w.f)
			case kindDecimal:
				same = g.d == w.d
			case kindString, kindJSON:
				same = bytes.Equal(g.s, w.s)
			}
		}
		if !same {
			t.Fatalf("parse(%q): column %s = %+v, reference %+v", line, p.cols[j].name, *g, *w)
		}
	}
	return true
}

// diffKeys are the field names random lines use: the columns' names, other
// cases of them, unknown names and an escaped one.
var diffKeys = []string{"b", "ti", "i", "bi", "f", "d", "dec", "s", "j", "dt", "ts", "t0", "nn", "Name", "NAME",
	"name", "BI", "S", "TS", "x", "o", "p", `\u0069`, `b\"`, ""}

// diffValues are the values random lines use, valid and not.
var diffValues = []string{
	"0", "-0", "1", "-1", "7", "01", "-01", "-", "1.0", "1.5", "-2.5e-3", "1e3", "1E+2", "2e", "1.", ".5",
	"127", "128", "-128", "-129", "2147483647", "2147483648", "-2147483649",
	"123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "99999999999999999999", "1e400", "-1e400", "4e38",
	"1704067201123", "-1704067201123", "12345678.125", "0.005", "00",
	"true", "false", "null", "nul", "tru", "fals", "nan", "NaN",
	`""`, `"a"`, `"channel-7"`, `"héllo"`, `"\u00e9\ud83d\ude00\ud800"`, `"a\"b\\c\/d\n\t"`, `"\x"`, `"\u12"`,
	"\"\xff\xfe\"", "\"\x01\"", `"2024-02-29"`, `"2024-01-01 00:00:01.123"`, `"2024-01-01T00:00:01Z"`,
	`" 8 "`, `"T"`, `"1.5"`, `"-9"`, `"12345678901234567890"`, `"inf"`, `"1e2"`, `"{\"a\":1}"`, `"[1,"`,
	`{}`, `[]`, `[1,"x",null]`, `{"a":[1,2,{"b":null}]}`, `{"p":5}`, `{"p":"x"}`, `{"p":[1]}`, `{"a":1,}`, `[1 2]`,
	`"unterminated`, `"abcdefgh"`, `"abcdefghij\"klmnop"`, "\"abcdefghijk\x01\"", "\"abcdefghijklmnopq\xc3\xa9rs\"",
	"\"abcdefghijklmnopq\xc3rs\"", `"abcdefghijklmnopqrstuvwxyz0123456789~ "`, `"abcdefghijklmnop\u0041"`,
}

// diffInts, diffNums, diffDates and diffTimes are values of diffValues
// that suit a column type, given its fields most of the time so that many
// random rows are good.
var (
	diffInts  = []string{"0", "-0", "1", "-1", "7", "127", "-128", "2147483647", "123456789012345678", "-123456789012345678", "9223372036854775807", "-9223372036854775808", "1704067201123", "null", `"-9"`, `" 8 "`}
	diffNums  = append([]string{"1.5", "-2.5e-3", "1e3", "1E+2", "12345678.125", "0.005", "4e38", `"1.5"`, `"inf"`}, diffInts...)
	diffDates = []string{`"2024-02-29"`, `"1970-01-01"`, `"2000-1-1"`, "null"}
	diffTimes = []string{`"2024-01-01 00:00:01.123"`, `"2024-01-01T00:00:01Z"`, "1704067201123", "-1", "0", "-0", "null"}
)

// diffValue returns a random value for a field named key.
func diffValue(r *rand.Rand, key string) string {
	var vs []string
	switch strings.ToLower(key) {
	case "b":
		vs = []string{"true", "false", "null", `"T"`, `"0"`}
	case "ti", "i", "bi", "nn", "p":
		vs = diffInts
	case "f", "d", "dec":
		vs = diffNums
	case "dt":
		vs = diffDates
	case "ts", "t0":
		vs = diffTimes
	}
	if vs == nil || r.IntN(5) == 0 {
		vs = diffValues
	}
	return vs[r.IntN(len(vs))]
}

// randLine returns a random line: mostly an object of diffKeys and
// diffValues with random blanks, sometimes cut, spliced or changed.
func randLine(r *rand.Rand) []byte {
	var b []byte
	ws := func() {
		if r.IntN(4) == 0 {
			b = append(b, " \t\r\n"[r.IntN(4)])
		}
	}
	ws()
	b = append(b, '{')
	n := r.IntN(9)
	nn := r.IntN(n+2) - 1 // where the NOT NULL column's field goes, if anywhere
	for k := range n {
		if k > 0 {
			ws()
			b = append(b, ',')
		}
		ws()
		key := diffKeys[r.IntN(len(diffKeys))]
		if k == nn {
			key = "nn"
		}
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, '"')
		ws()
		b = append(b, ':')
		ws()
		if key == "o" && r.IntN(2) == 0 {
			b = append(b, `{"p":`+diffValue(r, "p")+`}`...)
		} else {
			b = append(b, diffValue(r, key)...)
		}
		ws()
	}
	b = append(b, '}')
	ws()
	switch r.IntN(10) {
	case 0: // cut
		b = b[:r.IntN(len(b)+1)]
	case 1: // a byte changed
		b[r.IntN(len(b))] = byte(r.IntN(256))
	case 2: // a byte inserted
		i := r.IntN(len(b) + 1)
		const tokens = `{}[]",:-.0123456789eE \`
		b = append(b[:i], append([]byte{tokens[r.IntN(len(tokens))]}, b[i:]...)...)
	}
	return b
}

// TestJSONMatchesReference parses random lines, good and bad, with the
// parser and with the reference (the parser before its typed fast paths,
// json_ref_test.go), which must agree on every fault (code, column,
// message, value) and every cell. The parsers are kept across lines, as a
// source keeps them, so the guesses of field positions are exercised too.
func TestJSONMatchesReference(t *testing.T) {
	p, ref := diffParsers(t)
	r := rand.New(rand.NewPCG(13, 1))
	n := 50_000
	if testing.Short() {
		n = 5_000
	}
	good := 0
	for range n {
		if compareParse(t, p, ref, randLine(r)) {
			good++
		}
	}
	t.Logf("%d random lines, %d of them good rows", n, good)
	for _, line := range []string{
		`{"bi":123,"s":"abc","ts":1704067201123,"f":5,"d":-0,"nn":1}`,
		`{"nn":1,"o":{"p":-17}}`, `{"nn":1,"o":{"p":1.5}}`, `{"nn":1,"o":{"p":"x"}}`,
		`{"nn":1,"name":"x","Name":"y","NAME":3}`, `{"nn":-0,"ti":-0,"f":-0,"d":-0,"ts":-0}`,
		`{"nn":1,"i":` + strings.Repeat("9", 18) + `}`, `{"nn":1,"d":` + strings.Repeat("9", 18) + `}`,
	} {
		compareParse(t, p, ref, []byte(line))
	}
}

// FuzzJSONMatchesReference compares the parser with the reference on
// arbitrary lines (see TestJSONMatchesReference).
func FuzzJSONMatchesReference(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 13))
	for range 50 {
		f.Add(randLine(r))
	}
	p, ref := diffParsers(f)
	f.Fuzz(func(t *testing.T, line []byte) {
		compareParse(t, p, ref, line)
	})
}
