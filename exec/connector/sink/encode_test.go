package sink

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
)

// The lines allRows encode to, per format, without ops.
var (
	wantJSON = []string{
		`{"b":true,"ti":-128,"i":2147483647,"bi":-9223372036854775808,"f":1.5,"d":3.141592653589793,"dec":12345678.90,"s":"he said \"hi\", then left","dt":"2024-02-29","ts0":"2024-01-01 00:00:01","ts3":"2024-01-01 00:00:01.250","iv":"INTERVAL '10' SECOND"}`,
		`{"b":null,"ti":null,"i":null,"bi":null,"f":null,"d":null,"dec":null,"s":null,"dt":null,"ts0":null,"ts3":null,"iv":null}`,
		`{"b":false,"ti":0,"i":0,"bi":9223372036854775807,"f":-0.25,"d":"NaN","dec":-0.05,"s":"","dt":"1969-12-31","ts0":"1900-01-01 00:00:00","ts3":"1969-12-31 23:59:59.999","iv":"INTERVAL '1500' MILLISECOND"}`,
		`{"b":true,"ti":127,"i":-1,"bi":1,"f":1e-07,"d":"Infinity","dec":0.00,"s":"naïve ☃ 日本\n\t\u0001 back\\slash","dt":"1900-01-01","ts0":"1970-01-01 00:00:00","ts3":"9999-12-31 23:59:59.999","iv":"INTERVAL '-1' DAY"}`,
	}
	wantCSV = []string{
		`true,-128,2147483647,-9223372036854775808,1.5,3.141592653589793,12345678.90,"he said ""hi"", then left",2024-02-29,2024-01-01 00:00:01,2024-01-01 00:00:01.250,INTERVAL '10' SECOND`,
		`,,,,,,,,,,,`,
		`false,0,0,9223372036854775807,-0.25,NaN,-0.05,"",1969-12-31,1900-01-01 00:00:00,1969-12-31 23:59:59.999,INTERVAL '1500' MILLISECOND`,
		"true,127,-1,1,1e-07,Infinity,0.00,\"naïve ☃ 日本\n\t\x01 back\\slash\",1900-01-01,1970-01-01 00:00:00,9999-12-31 23:59:59.999,INTERVAL '-1' DAY",
	}
	wantText = []string{
		`true -128 2147483647 -9223372036854775808 1.5 3.141592653589793 12345678.90 he said "hi", then left 2024-02-29 2024-01-01 00:00:01 2024-01-01 00:00:01.250 INTERVAL '10' SECOND`,
		`NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL NULL`,
		`false 0 0 9223372036854775807 -0.25 NaN -0.05  1969-12-31 1900-01-01 00:00:00 1969-12-31 23:59:59.999 INTERVAL '1500' MILLISECOND`,
		"true 127 -1 1 1e-07 Infinity 0.00 naïve ☃ 日本\n\t\x01 back\\slash 1900-01-01 1970-01-01 00:00:00 9999-12-31 23:59:59.999 INTERVAL '-1' DAY",
	}
	// allOps are the ops of allRows in an updating query.
	allOps     = []exec.Op{exec.Insert, exec.Delete, exec.UpdateBefore, exec.UpdateAfter}
	allOpNames = []string{"+I", "-D", "-U", "+U"}
)

func TestEncodeFormats(t *testing.T) {
	alloc := newAlloc(t)
	for _, tt := range []struct {
		format string
		want   []string
	}{{FormatJSON, wantJSON}, {FormatCSV, wantCSV}, {FormatText, wantText}} {
		for _, updating := range []bool{false, true} {
			name := tt.format + "/append-only"
			if updating {
				name = tt.format + "/updating"
			}
			t.Run(name, func(t *testing.T) {
				var ops []exec.Op
				want := append([]string(nil), tt.want...)
				if updating {
					ops = allOps
					for i, w := range want {
						switch tt.format {
						case FormatJSON:
							want[i] = `{"op":"` + allOpNames[i] + `",` + w[1:]
						case FormatCSV:
							want[i] = allOpNames[i] + "," + w
						default:
							want[i] = allOpNames[i] + " " + w
						}
					}
				}
				e := newEncoder(tt.format, updating, allNames, allTypes)
				c := makeChunk(t, alloc, allNames, allTypes, allRows(t), ops)
				got, err := e.encode(c)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != lines(want...) {
					t.Errorf("got\n%s\nwant\n%s", got, lines(want...))
				}
			})
		}
	}
}

// TestEncodeTextMatchesFormat checks that print's text is types.Format's.
func TestEncodeTextMatchesFormat(t *testing.T) {
	rows := allRows(t)
	c := makeChunk(t, newAlloc(t), allNames, allTypes, rows, nil)
	got, err := newEncoder(FormatText, false, allNames, allTypes).encode(c)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, row := range rows {
		vals := make([]string, len(row))
		for j, d := range row {
			vals[j] = types.Format(d, allTypes[j])
		}
		want = append(want, strings.Join(vals, " "))
	}
	if string(got) != lines(want...) {
		t.Errorf("got\n%s\nwant\n%s", got, lines(want...))
	}
}

// TestEncodeJSONIsValid decodes every line with encoding/json and checks
// the values it holds, decimals exactly.
func TestEncodeJSONIsValid(t *testing.T) {
	c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), allOps)
	got, err := newEncoder(FormatJSON, true, allNames, allTypes).encode(c)
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	d := json.NewDecoder(bytes.NewReader(got))
	d.UseNumber()
	for {
		var m map[string]any
		if err := d.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("invalid JSON: %v\n%s", err, got)
		}
		objs = append(objs, m)
	}
	if len(objs) != 4 {
		t.Fatalf("got %d objects, want 4", len(objs))
	}
	checks := []struct {
		row  int
		key  string
		want any
	}{
		{0, "op", "+I"}, {1, "op", "-D"}, {2, "op", "-U"}, {3, "op", "+U"},
		{0, "dec", json.Number("12345678.90")}, {0, "bi", json.Number("-9223372036854775808")},
		{0, "s", `he said "hi", then left`}, {1, "s", nil}, {2, "s", ""}, {2, "d", "NaN"},
		{3, "s", "naïve ☃ 日本\n\t\x01 back\\slash"}, {3, "d", "Infinity"}, {0, "b", true},
	}
	for _, ch := range checks {
		if got := objs[ch.row][ch.key]; got != ch.want {
			t.Errorf("row %d key %s: got %#v, want %#v", ch.row, ch.key, got, ch.want)
		}
	}
}

func TestEncodeCSVHeader(t *testing.T) {
	names := []string{"id", "a,b", `say "x"`, "line\nbreak", ""}
	ts := []types.T{types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT, types.BigIntT}
	got := string(newEncoder(FormatCSV, false, names, ts).header())
	if want := "id,\"a,b\",\"say \"\"x\"\"\",\"line\nbreak\",\"\"\n"; got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	got = string(newEncoder(FormatCSV, true, names[:1], ts[:1]).header())
	if want := "op,id\n"; got != want {
		t.Errorf("updating header %q, want %q", got, want)
	}
}

func TestEncodeJSONKeysEscaped(t *testing.T) {
	names := []string{`a"b`, "ü"}
	ts := []types.T{types.BigIntT, types.VarcharT}
	rows := [][]types.Datum{{types.IntDatum(1), types.StringDatum("x")}}
	c := makeChunk(t, newAlloc(t), names, ts, rows, nil)
	got, err := newEncoder(FormatJSON, false, names, ts).encode(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a\"b":1,"ü":"x"}` + "\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEncodeSlicedBatch(t *testing.T) {
	// A chunk may be a slice of a larger batch: its arrays have an offset.
	c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), nil)
	sl := c.Batch.NewSlice(2, 4)
	defer sl.Release()
	got, err := newEncoder(FormatCSV, false, allNames, allTypes).encode(exec.Chunk{Batch: sl})
	if err != nil {
		t.Fatal(err)
	}
	if want := lines(wantCSV[2:]...); string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestEncodeZeroAllocs(t *testing.T) {
	c := makeChunk(t, newAlloc(t), allNames, allTypes, allRows(t), allOps)
	for _, format := range []string{FormatJSON, FormatCSV, FormatText} {
		e := newEncoder(format, true, allNames, allTypes)
		if _, err := e.encode(c); err != nil { // grows the buffers
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := e.encode(c); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per chunk, want 0", format, allocs)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	rows := allRows(b)
	var big [][]types.Datum
	for len(big) < 4096 {
		big = append(big, rows...)
	}
	c := makeChunk(b, newAlloc(b), allNames, allTypes, big, nil)
	for _, format := range []string{FormatJSON, FormatCSV, FormatText} {
		b.Run(format, func(b *testing.B) {
			e := newEncoder(format, false, allNames, allTypes)
			b.ReportAllocs()
			for b.Loop() {
				out, err := e.encode(c)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(out)))
			}
		})
	}
}
