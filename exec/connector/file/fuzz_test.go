package file

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// FuzzCSVRoundTrip writes three fields with encoding/csv and checks that the
// scanner reads them back, and that it consumes arbitrary bytes without
// panicking or stalling.
func FuzzCSVRoundTrip(f *testing.F) {
	f.Add("a", "b c", "d")
	f.Add("", `"quoted"`, "x,y")
	f.Add("multi\nline", "cr\r\nlf", " lead")
	f.Add("\r", `\.`, "\"")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		if err := w.Write([]string{a, b, c}); err != nil {
			t.Skip()
		}
		w.Flush()
		data := buf.Bytes()
		for _, final := range []bool{false, true} {
			sc := csvScanner{delim: ','}
			n, lines, st, msg := sc.scan(data, final)
			if st != scanRecord || n != len(data) || lines != bytes.Count(data, nlByte) {
				t.Fatalf("scan(%q, %v) = %d, %d, %d, %q", data, final, n, lines, st, msg)
			}
			if len(sc.fields) != 3 || string(sc.fields[0].b) != a || string(sc.fields[1].b) != b || string(sc.fields[2].b) != c {
				t.Fatalf("scan(%q) fields = %+v", data, sc.fields)
			}
		}
		raw := []byte(a + b + c)
		for _, final := range []bool{false, true} {
			sc := csvScanner{delim: ','}
			for rest := raw; len(rest) > 0; {
				n, lines, st, _ := sc.scan(rest, final)
				if st == scanMore {
					if final {
						t.Fatalf("scan(%q, final) wants more", rest)
					}
					break
				}
				if n <= 0 || n > len(rest) || lines != bytes.Count(rest[:n], nlByte) {
					t.Fatalf("scan(%q) = %d bytes, %d lines", rest, n, lines)
				}
				rest = rest[n:]
			}
		}
	})
}

// FuzzJSONSyntax checks the JSON-lines parser's verdict on syntax against
// encoding/json.
func FuzzJSONSyntax(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"x\u00e9\ud83d\ude00"}`, `{"a":[1,{"b":null}],"c":true}`,
		`{"a":1,}`, `{"a":01}`, `{"a":"\x"}`, `{"a":-}`, ` {} `, `[]`, `{"a":1e5,"A":2}`} {
		f.Add(s)
	}
	cs := []catalog.Column{{Name: "a", Type: types.VarcharT, Nullable: true}}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			t.Skip()
		}
		col, _ := newColumn(cs[0])
		p := newJSONParser([]column{col})
		cells := make([]cell, 1)
		got := p.parse([]byte(line), cells)
		valid := json.Valid([]byte(line))
		isObject := strings.HasPrefix(strings.TrimLeft(line, " \t\r"), "{")
		switch {
		case got.code == faultUTF8:
		case valid && isObject && got.code != faultNone:
			t.Fatalf("parse(%q) = %+v; encoding/json finds it valid", line, got)
		case !valid && got.code == faultNone:
			t.Fatalf("parse(%q) succeeded; encoding/json finds it invalid", line)
		}
	})
}
