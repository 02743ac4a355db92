package sql

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParse runs the golden files under testdata/parse. The command
// `parse [tidb]` parses its input as a script and prints every statement
// (with `tidb`, also the text handed to TiDB), then the error, if any, with
// its snippet. Regenerate with go test ./sql -run TestParse -rewrite.
func TestParse(t *testing.T) {
	datadriven.Walk(t, "testdata/parse", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				return runParse(t, d)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

func runParse(t *testing.T, d *datadriven.TestData) string {
	pr := &printer{tidb: d.HasArg("tidb")}
	stmts, err := Parse(d.Input)
	for i, s := range stmts {
		if i > 0 {
			pr.b.WriteByte('\n')
		}
		pr.stmt(s, 0)
	}
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: error %T is not a *ParseError: %v", d.Pos, err, err)
		}
		if pe.Pos.Offset < 0 || pe.Pos.Offset > len(d.Input) {
			t.Errorf("%s: error offset %d outside the input", d.Pos, pe.Pos.Offset)
		}
		if len(stmts) > 0 {
			pr.b.WriteByte('\n')
		}
		pr.b.WriteString("error: " + err.Error() + "\n")
		pr.b.WriteString(pe.Snippet() + "\n")
	}
	if len(stmts) == 0 && err == nil {
		pr.b.WriteString("(no statements)\n")
	}
	for _, c := range pr.checks {
		t.Errorf("%s: %s", d.Pos, c)
	}
	return strings.TrimRight(pr.b.String(), "\n") + "\n"
}
