package sql

import (
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		pieces []string
		rest   string
	}{
		{"two statements", "SELECT 1; SELECT 2;", []string{"SELECT 1;", "SELECT 2;"}, ""},
		{"incomplete last", "SELECT 1;\nSELECT 2", []string{"SELECT 1;"}, "SELECT 2"},
		{"only whitespace", "  \n\t ", nil, ""},
		{"empty", "", nil, ""},
		{"only comments", "-- a;\n# b;\n/* c; */\n", nil, ""},
		{"empty statements", ";; ;\n;", nil, ""},
		{"semicolon in strings", `SELECT ';', "a;b", 'it''s;', "say ""x;""";`, []string{`SELECT ';', "a;b", 'it''s;', "say ""x;""";`}, ""},
		{"backslash escapes", `SELECT 'it\'s;', "q\";";`, []string{`SELECT 'it\'s;', "q\";";`}, ""},
		{"backquotes", "SELECT `a;b`, `c``;d` FROM t;", []string{"SELECT `a;b`, `c``;d` FROM t;"}, ""},
		{"backslash in backquotes", "SELECT `a\\`; SELECT 2;", []string{"SELECT `a\\`;", "SELECT 2;"}, ""},
		{"comments between", "-- lead;\nSELECT 1; /* ; */ SELECT /* ; */ 2 -- x;\n;", []string{"SELECT 1;", "SELECT /* ; */ 2 -- x;\n;"}, ""},
		{"hash comment", "SELECT 1 # ; here\n;", []string{"SELECT 1 # ; here\n;"}, ""},
		{"dash comment without space", "SELECT 1--;\n;", []string{"SELECT 1--;\n;"}, ""},
		{"unterminated string", "SELECT 1; SELECT 'abc;\nmore;", []string{"SELECT 1;"}, "SELECT 'abc;\nmore;"},
		{"unterminated double string", `SELECT "abc\";`, nil, `SELECT "abc\";`},
		{"unterminated backquote", "SELECT `abc;", nil, "SELECT `abc;"},
		{"unterminated comment in statement", "SELECT 1 /* ;", nil, "SELECT 1 /* ;"},
		{"unterminated comment after", "SELECT 1; /* ;", []string{"SELECT 1;"}, "/* ;"},
		{"trailing line comment", "SELECT 1 -- ;", nil, "SELECT 1 -- ;"},
		{"multi-line", "CREATE STREAM s (\n  a INT\n);\nFLUSH;", []string{"CREATE STREAM s (\n  a INT\n);", "FLUSH;"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pieces, rest := Split(tt.text)
			var got []string
			for _, p := range pieces {
				got = append(got, p.Text)
				if tt.text[p.Start.Offset:p.Start.Offset+len(p.Text)] != p.Text {
					t.Errorf("piece %q does not start at offset %d", p.Text, p.Start.Offset)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.pieces, "|") || len(got) != len(tt.pieces) {
				t.Errorf("pieces = %q, want %q", got, tt.pieces)
			}
			if rest != tt.rest {
				t.Errorf("rest = %q, want %q", rest, tt.rest)
			}
			if !strings.HasSuffix(tt.text, rest) {
				t.Errorf("rest %q is not a suffix of the text", rest)
			}
		})
	}
}

func TestSplitPositions(t *testing.T) {
	text := "SELECT 1;  SELECT 2;\n\n  -- c\n  FLUSH;\nSHOW"
	pieces, rest := Split(text)
	want := []Pos{{0, 1, 1}, {11, 1, 12}, {31, 4, 3}}
	if len(pieces) != len(want) {
		t.Fatalf("got %d pieces, want %d", len(pieces), len(want))
	}
	for i, p := range pieces {
		if p.Start != want[i] {
			t.Errorf("piece %d %q starts at %+v, want %+v", i, p.Text, p.Start, want[i])
		}
	}
	if rest != "SHOW" || len(text)-len(rest) != 38 {
		t.Errorf("rest = %q at %d", rest, len(text)-len(rest))
	}
}

// TestSplitThenParseOne is how script runners use the API: every piece
// parses on its own with script-relative positions.
func TestSplitThenParseOne(t *testing.T) {
	text := "FLUSH; SHOW STREAMS;\nSELECT a\n  FROM t WHERE = 1;\nDESCRIBE x"
	pieces, rest := Split(text)
	if len(pieces) != 3 || rest != "DESCRIBE x" {
		t.Fatalf("Split = %v, %q", pieces, rest)
	}
	if s, err := ParseOne(pieces[1].Text, pieces[1].Start); err != nil || s.(*Show).Start != (Pos{7, 1, 8}) {
		t.Errorf("ParseOne(%q) = %+v, %v", pieces[1].Text, s, err)
	}
	_, err := ParseOne(pieces[2].Text, pieces[2].Start)
	pe, ok := err.(*ParseError)
	if !ok {
		t.Fatalf("ParseOne(%q) error = %v, want a *ParseError", pieces[2].Text, err)
	}
	if pe.Pos != (Pos{Offset: 45, Line: 3, Col: 16}) || pe.Line != "  FROM t WHERE = 1;" {
		t.Errorf("error at %+v on line %q", pe.Pos, pe.Line)
	}
	restStart := len(text) - len(rest)
	if d, err := ParseOne(rest, Pos{Offset: restStart, Line: 4, Col: 1}); err != nil || d.(*Describe).Name.Pos != (Pos{restStart + 9, 4, 10}) {
		t.Errorf("ParseOne(rest) = %+v, %v", d, err)
	}
}
