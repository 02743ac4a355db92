package file

import (
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	runReadCases(t, "f.jsonl", FormatJSON, []readCase{
		{
			name: "every type",
			cols: []string{"b BOOLEAN", "ti TINYINT", "i INT", "bi BIGINT", "f FLOAT", "d DOUBLE",
				"dec DECIMAL(38,2)", "s VARCHAR", "dt DATE", "ts TIMESTAMP(3)"},
			content: `{"b":true,"ti":-128,"i":2147483647,"bi":-9223372036854775808,"f":1.5,"d":-2.5e-3,"dec":123456789012345678901234567890123456.78,"s":"héllo","dt":"2024-02-29","ts":"2024-01-01 00:00:01.123"}` + "\n" +
				`{"b":false,"ti":1,"i":1000,"bi":9223372036854775807,"f":0,"d":1,"dec":0.005,"s":"","dt":"1970-01-01","ts":1704067201123}` + "\n" +
				`{"b":"T","ti":"7","i":" 8 ","bi":"-9","f":"2.5","d":"1e2","dec":"-1.5","s":"x","dt":"2000-01-01","ts":"2024-01-01T00:00:01Z"}` + "\n" +
				`{"b":1,"ti":0,"i":0,"bi":0,"f":0,"d":0,"dec":-0.004,"s":"y","dt":"2000-01-01","ts":-1}` + "\n",
			want: []string{
				"true | -128 | 2147483647 | -9223372036854775808 | 1.5 | -0.0025 | 123456789012345678901234567890123456.78 | héllo | 2024-02-29 | 2024-01-01 00:00:01.123",
				"false | 1 | 1000 | 9223372036854775807 | 0 | 1 | 0.01 | (empty) | 1970-01-01 | 2024-01-01 00:00:01.123",
				"true | 7 | 8 | -9 | 2.5 | 100 | -1.50 | x | 2000-01-01 | 2024-01-01 00:00:01.000",
				"true | 0 | 0 | 0 | 0 | 0 | 0.00 | y | 2000-01-01 | 1969-12-31 23:59:59.999",
			},
		},
		{
			name: "missing, extra and null fields",
			cols: []string{"a BIGINT", "s VARCHAR", "ts TIMESTAMP"},
			content: `{"a":1}` + "\n" +
				`{"s":null,"a":null,"extra":{"deep":[1,2,{"x":null}]},"more":[true,false],"ts":1704067201999}` + "\n" +
				`{}` + "\n",
			want: []string{"1 | NULL | NULL", "NULL | NULL | 2024-01-01 00:00:02", "NULL | NULL | NULL"},
		},
		{
			name: "names: exact first, then case-insensitive",
			cols: []string{"price BIGINT", "Name VARCHAR"},
			content: `{"PRICE":1,"name":"a"}` + "\n" +
				`{"price":2,"PRICE":3}` + "\n" +
				`{"PRICE":3,"price":4}` + "\n" +
				`{"price":5,"price":6}` + "\n",
			want: []string{"1 | a", "2 | NULL", "4 | NULL", "6 | NULL"},
		},
		{
			name: "strings: escapes, nested values and other JSON as text",
			cols: []string{"s VARCHAR"},
			content: `{"s":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00\ud800"}` + "\n" +
				`{"s":{"k":[1, "two"]}}` + "\n" +
				`{"s":12.50}` + "\n" +
				`{"s":true}` + "\n",
			want: []string{"a\"b\\c/d\n\té😀\uFFFD", `{"k":[1, "two"]}`, "12.50", "true"},
		},
		{
			name:    "blank lines, CRLF and whitespace",
			cols:    []string{"a BIGINT"},
			content: "\n  \n" + `{"a":1}` + "\r\n" + ` { "a" : 2 } ` + "\n\r\n \t\r\n" + `{"a":3}`,
			want:    []string{"1", "2", "3"},
		},
		{
			name: "bad rows",
			cols: []string{"a BIGINT", "d DATE"},
			content: `{"a":1}` + "\n" +
				`{"a":1.5}` + "\n" +
				`{"a":"x"}` + "\n" +
				`{"a":100000000000000000000}` + "\n" +
				`{"a":true}` + "\n" +
				`{"d":20240101}` + "\n" +
				`{"a":[1]}` + "\n" +
				`{"a":2}` + "\n",
			want:    []string{"1 | NULL", "2 | NULL"},
			wantBad: 6,
			wantWarn: []string{
				`f.jsonl:2: column a: cannot parse 1.5 as BIGINT`,
				`f.jsonl:3: column a: cannot parse "x" as BIGINT`,
				`f.jsonl:4: column a: value 100000000000000000000 out of range for BIGINT`,
				`f.jsonl:5: column a: cannot parse true as BIGINT`,
				`f.jsonl:6: column d: cannot parse 20240101 as DATE`,
				`f.jsonl: more than 5 bad rows; further bad rows are only counted (bad_rows)`,
			},
		},
		{
			// A JSON number for an integer column (or a TIMESTAMP's
			// milliseconds) is digits only, as in CSV: 1e3 and 1.0 are bad
			// rows, as is a string holding them.
			name: "integers take digits only",
			cols: []string{"a BIGINT", "ts TIMESTAMP(3)"},
			content: `{"a":1e3}` + "\n" +
				`{"a":1.0}` + "\n" +
				`{"a":"1e3"}` + "\n" +
				`{"a":-12,"ts":1704067201123}` + "\n" +
				`{"a":1.5}` + "\n" +
				`{"ts":1.7e12}` + "\n" +
				`{"a":"7"}` + "\n",
			want:    []string{"-12 | 2024-01-01 00:00:01.123", "7 | NULL"},
			wantBad: 5,
			wantWarn: []string{
				`f.jsonl:1: column a: cannot parse 1e3 as BIGINT`,
				`f.jsonl:2: column a: cannot parse 1.0 as BIGINT`,
				`f.jsonl:3: column a: cannot parse "1e3" as BIGINT`,
				`f.jsonl:5: column a: cannot parse 1.5 as BIGINT`,
				`f.jsonl:6: column ts: cannot parse 1.7e12 as TIMESTAMP(3)`,
			},
		},
		{
			name: "malformed JSON",
			cols: []string{"a BIGINT"},
			content: `{"a":1` + "\n" +
				`[1]` + "\n" +
				`{"a":1}x` + "\n" +
				`{"a" 1}` + "\n" +
				`{"a":01}` + "\n" +
				`{"a":2}` + "\n",
			want:    []string{"2"},
			wantBad: 5,
			wantWarn: []string{
				`f.jsonl:1: malformed JSON: expected ',' or '}' at byte 7`,
				`f.jsonl:2: malformed JSON: expected an object at byte 1`,
				`f.jsonl:3: malformed JSON: unexpected text after the object at byte 8`,
				`f.jsonl:4: malformed JSON: expected ':' after a field name at byte 6`,
				`f.jsonl:5: malformed JSON: expected ',' or '}' at byte 7`,
			},
		},
		{
			// The row's object is the first level: a field may nest 511
			// more; the 512th array or object is a bad row, reported as
			// too deep (not as malformed) whether the field is ignored,
			// kept as text or ends before its brackets close.
			name: "nested too deeply",
			cols: []string{"a BIGINT", "s VARCHAR"},
			content: `{"x":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `,"a":1}` + "\n" +
				`{"x":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `,"a":2}` + "\n" +
				`{"s":` + strings.Repeat(`{"k":`, 600) + "1" + strings.Repeat("}", 600) + `}` + "\n" +
				`{"a":3,"s":` + strings.Repeat("[", 100000) + "\n" +
				`{"s":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `,"a":4}` + "\n",
			want:    []string{"1 | NULL", "4 | " + strings.Repeat("[", 511) + strings.Repeat("]", 511)},
			wantBad: 3,
			wantWarn: []string{
				`f.jsonl:2: JSON nested too deeply: more than 512 levels of arrays and objects at byte 517`,
				`f.jsonl:3: JSON nested too deeply: more than 512 levels of arrays and objects at byte 2561`,
				`f.jsonl:4: JSON nested too deeply: more than 512 levels of arrays and objects at byte 523`,
			},
		},
		{
			name:     "NOT NULL",
			cols:     []string{"a BIGINT NOT NULL"},
			content:  `{"a":1}` + "\n" + `{}` + "\n" + `{"a":null}` + "\n",
			want:     []string{"1"},
			wantBad:  2,
			wantWarn: []string{"f.jsonl:2: column a: NULL in a NOT NULL column", "f.jsonl:3: column a: NULL in a NOT NULL column"},
		},
	})
}
