package sql

import (
	"slices"
	"testing"
)

func TestStatements(t *testing.T) {
	text := "SELECT 1;\n  -- c\n  SELECT\n 2; SELECT 3"
	want := []Piece{
		{Text: "SELECT 1;", Start: Pos{Offset: 0, Line: 1, Col: 1}},
		{Text: "SELECT\n 2;", Start: Pos{Offset: 19, Line: 3, Col: 3}},
		{Text: "SELECT 3", Start: Pos{Offset: 30, Line: 4, Col: 5}},
	}
	if got := Statements(text); !slices.Equal(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for _, text := range []string{"", " -- only a comment\n", "SELECT 1;\n"} {
		if got := Statements(text); len(got) > 1 || (len(got) == 1 && got[0].Text != "SELECT 1;") {
			t.Errorf("%q: %+v", text, got)
		}
	}
	// A piece parses at its position: an error names the script's line.
	pieces := Statements("SELECT 1;\nSELECT FROM")
	if _, err := ParseOne(pieces[1].Text, pieces[1].Start); err == nil {
		t.Fatal("a bad last statement parsed")
	} else if pe, ok := err.(PosError); !ok || pe.Position().Line != 2 {
		t.Errorf("error %v, want one at line 2", err)
	}
}
