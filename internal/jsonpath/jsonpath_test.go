package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const doc = ` { "a" : { "b" : [ 10, 20.5, { "c" : "x" } ] , "n": null},
  "t": true, "key with space": 1, "a\u0062": "escaped", "dup": 1, "dup": 2, "s": "h\u00e9\n" } `

// TestExtract checks paths against what MySQL's JSON_EXTRACT answers.
func TestExtract(t *testing.T) {
	for _, tt := range []struct {
		path, want string // want "" means no value
	}{
		{`$`, `{"a": {"b": [10, 20.5, {"c": "x"}], "n": null}, "s": "hé\n", "t": true, "ab": "escaped", "dup": 2, "key with space": 1}`},
		{`$.a.b[2].c`, `"x"`},
		{`$.a.b[0]`, `10`},
		{`$.a.b[last]`, `{"c": "x"}`},
		{`$.a.b[last-1]`, `20.5`},
		{`$.a.b[last-3]`, ``},
		{`$.a.b[3]`, ``},
		{`$.a.b[*]`, `[10, 20.5, {"c": "x"}]`},
		{`$.a.b[*].c`, `["x"]`},
		{`$.a.n`, `null`},
		{`$.missing`, ``},
		{`$.a.missing[*]`, ``},
		{`$."key with space"`, `1`},
		{`$.ab`, `"escaped"`},
		{`$.dup`, `2`},
		{`$.t[0]`, `true`},
		{`$.t[last]`, `true`},
		{`$.t[1]`, ``},
		{`$.t.x`, ``},
		{` $ . a . n `, `null`},
		{`$.s`, `"hé\n"`},
		{`$.a.*`, `[[10, 20.5, {"c": "x"}], null]`},
	} {
		p, err := Parse(tt.path)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		got, found, err := Extract([]byte("keep:"), []byte(doc), p)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if string(got[:5]) != "keep:" {
			t.Fatalf("%s: the output's prefix was overwritten: %q", tt.path, got)
		}
		if g := string(got[5:]); found != (tt.want != "") || g != tt.want {
			t.Errorf("%s: got %q (found %v), want %q", tt.path, g, found, tt.want)
		}
	}
}

// TestInvalid checks that damaged documents are refused whatever part a
// path reads.
func TestInvalid(t *testing.T) {
	p, _ := Parse("$.a")
	for _, d := range []string{``, ` `, `{`, `{"a":}`, `{"a":1,}`, `[1,]`, `01`, `-`, `1.`, `1e`, `"\x"`, `"a`, "\"a\tb\"",
		`{"a": 1} x`, `{"a": 1}}`, `tru`, `nul`, `{a: 1}`, `{"a" 1}`, `[1 2]`, `"\u12G4"`,
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)} {
		if _, _, err := Extract(nil, []byte(d), p); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", d, err)
		}
		if Valid([]byte(d)) {
			t.Errorf("%q is valid", d)
		}
	}
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if !Valid([]byte(deep)) {
		t.Errorf("nesting %d deep refused", MaxDepth)
	}
}

// TestPathErrors checks the paths refused, with where.
func TestPathErrors(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{`a.b`, `a path starts with $ at character 1`},
		{`$.`, `a member name must follow '.' at character 3`},
		{`$[x]`, `an array index is a number, *, last or last-N, not "x" at character 3`},
		{`$[1`, `missing ']' at character 2`},
		{`$**.a`, `the recursive wildcard ** is not supported yet at character 2`},
		{`$.a.**`, `the recursive wildcard ** is not supported yet at character 5`},
		{`$[1 to 2]`, `array ranges ([m to n]) are not supported yet at character 3`},
		{`$.a-b`, `expected '.' or '[', found '-' at character 4`},
		{`$."a`, `unterminated or malformed quoted member name at character 3`},
		{`$.a b`, `expected '.' or '[', found 'b' at character 5`},
	} {
		_, err := Parse(tt.path)
		var pe *PathError
		if !errors.As(err, &pe) || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ...%s", tt.path, err, tt.want)
		}
	}
}

// TestFunctions checks Unquote, Type, Length and Keys.
func TestFunctions(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"a\nb\"c"`, "a\nb\"c"}, {`"\ud83d\ude00!"`, "😀!"}, {`"\ud83d"`, "\uFFFD"}, {` [1,2] `, `[1, 2]`},
		{`abc`, `abc`}, {`12`, `12`}, {`"é\/"`, `é/`},
	} {
		if got := string(Unquote(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("Unquote(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for in, want := range map[string]string{`{}`: "OBJECT", `[]`: "ARRAY", `"x"`: "STRING", `12`: "INTEGER", `-1.5`: "DOUBLE",
		`1e3`: "DOUBLE", `99999999999999999999`: "DOUBLE", `true`: "BOOLEAN", `null`: "NULL"} {
		if got, err := Type([]byte(in)); err != nil || got != want {
			t.Errorf("Type(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for in, want := range map[string]int{`{"a": 1, "b": [1, 2]}`: 2, `[]`: 0, `[[1, 2], 3]`: 2, `"x"`: 1} {
		if got, err := Length([]byte(in)); err != nil || got != want {
			t.Errorf("Length(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	if got, ok, err := Keys(nil, []byte(`{"bb": 1, "a": {"c": 2}, "c": 3, "a": 4}`)); !ok || err != nil || string(got) != `["a", "c", "bb"]` {
		t.Errorf("Keys: %s %v %v", got, ok, err)
	}
	if _, ok, err := Keys(nil, []byte(`[1]`)); ok || err != nil {
		t.Errorf("Keys of an array: %v %v", ok, err)
	}
	if _, err := Type([]byte(`{`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Type of damaged text: %v", err)
	}
}

// FuzzNormalize checks the scanner against encoding/json: the same
// documents are valid, and a normalized document means what the original
// does and normalizes to itself.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{doc, `[]`, `{"a":[1,{"b":null}],"c":"\u00e9"}`, `-0.5e+10`, `"\ud800"`, `[1,]`, `{"a" 1}`, `  true  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !utf8.Valid(in) {
			return // encoding/json and Normalize both replace invalid UTF-8, differently
		}
		if !bytes.Contains(in, []byte("[[[[")) && Valid(in) != json.Valid(in) {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", in, Valid(in), json.Valid(in))
		}
		norm, err := Normalize(nil, in)
		if err != nil {
			return
		}
		again, err := Normalize(nil, norm)
		if err != nil || !bytes.Equal(again, norm) {
			t.Fatalf("Normalize(%q) = %q, which normalizes to %q, %v", in, norm, again, err)
		}
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(in)), json.NewDecoder(bytes.NewReader(norm))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) == nil && db.Decode(&b) == nil && !reflect.DeepEqual(a, b) {
			t.Fatalf("Normalize(%q) = %q means something else", in, norm)
		}
	})
}
