package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/peterh/liner"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// fakeLines is a scripted lineReader. An item with an error returns it
// instead of a line; run, if set, is called when the item is read.
type fakeLines struct {
	items   []lineItem
	prompts []string
	history []string
}

type lineItem struct {
	line string
	err  error
}

func (f *fakeLines) Prompt(p string) (string, error) {
	f.prompts = append(f.prompts, p)
	if len(f.items) == 0 {
		return "", io.EOF
	}
	it := f.items[0]
	f.items = f.items[1:]
	return it.line, it.err
}

// AppendHistory keeps item, but not twice in a row, as liner does.
func (f *fakeLines) AppendHistory(item string) {
	if n := len(f.history); n == 0 || f.history[n-1] != item {
		f.history = append(f.history, item)
	}
}

func lines(ls ...string) []lineItem {
	out := make([]lineItem, len(ls))
	for i, l := range ls {
		out[i] = lineItem{line: l}
	}
	return out
}

// runShell runs the shell loop over items and returns the fake line
// reader, stdout and stderr.
func runShell(t *testing.T, f *fakeSession, items []lineItem, interrupts chan os.Signal) (*fakeLines, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	fl := &fakeLines{items: items}
	sh := &shell{
		r:          &runner{sess: f, p: &printer{out: &out, errOut: &errOut}},
		lines:      fl,
		out:        &out,
		interrupts: interrupts,
	}
	if err := sh.loop(context.Background()); err != nil {
		t.Fatalf("loop: %v", err)
	}
	return fl, out.String(), errOut.String()
}

func TestShellMultiLineStatements(t *testing.T) {
	f := &fakeSession{}
	fl, out, _ := runShell(t, f, lines(
		"CREATE STREAM s (",
		"  a BIGINT",
		");  SHOW STREAMS; SHOW",
		"TABLES;",
		"",
		"-- just a comment",
	), nil)
	if strings.Join(f.ran, "|") != "CREATE STREAM s (\n  a BIGINT\n)|SHOW STREAMS|SHOW\nTABLES" {
		t.Errorf("ran %q", f.ran)
	}
	wantPrompts := []string{promptFirst, promptMore, promptMore, promptMore, promptFirst, promptFirst, promptFirst}
	if strings.Join(fl.prompts, "|") != strings.Join(wantPrompts, "|") {
		t.Errorf("prompts %q, want %q", fl.prompts, wantPrompts)
	}
	wantHist := []string{"CREATE STREAM s ( a BIGINT );", "SHOW STREAMS;", "SHOW TABLES;"}
	if strings.Join(fl.history, "|") != strings.Join(wantHist, "|") {
		t.Errorf("history %q, want %q: one entry per statement", fl.history, wantHist)
	}
	if out != "OK\nOK\nOK\n\n" { // the last newline ends the line after Ctrl-D
		t.Errorf("stdout %q", out)
	}
}

func TestShellCtrlCClearsInput(t *testing.T) {
	f := &fakeSession{}
	fl, _, _ := runShell(t, f, []lineItem{
		{line: "SELECT a"},
		{err: liner.ErrPromptAborted},
		{line: "SHOW STREAMS;"},
	}, nil)
	if strings.Join(f.ran, "|") != "SHOW STREAMS" {
		t.Errorf("ran %q", f.ran)
	}
	if fl.prompts[2] != promptFirst {
		t.Errorf("prompt after Ctrl-C is %q", fl.prompts[2])
	}
}

func TestShellErrorsDoNotEndTheSession(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{"DROP STREAM nope": {err: errors.New(`stream "nope" does not exist`)}}}
	_, out, errOut := runShell(t, f, lines("DROP STREAM nope;", "DROP BAD;", "SHOW STREAMS;"), nil)
	if strings.Join(f.ran, "|") != "DROP STREAM nope|SHOW STREAMS" {
		t.Errorf("ran %q", f.ran)
	}
	if !strings.HasPrefix(errOut, "ERROR: stream \"nope\" does not exist\nERROR: ") || !strings.Contains(errOut, "DROP BAD;\n") {
		t.Errorf("stderr %q", errOut)
	}
	if out != "OK\n\n" {
		t.Errorf("stdout %q", out)
	}
}

func TestShellMetaCommands(t *testing.T) {
	f := &fakeSession{answers: map[string]fakeAnswer{
		"SHOW STREAMS": {res: rowsOf([]engine.Column{{Name: "name", Type: types.VarcharT}}, []types.Datum{types.StringDatum("bid")})},
	}}
	_, out, errOut := runShell(t, f, lines(
		`\help`, `\timing`, `\timing off`, `\timing maybe`, `\format`, `\format csv`, `\format xml`, `\nope`,
		"SHOW STREAMS;", `\q`, "SHOW TABLES;",
	), nil)
	for _, want := range []string{"Meta commands:", "Timing is on.", "Timing is off.", "Format is table.", "Format is csv.", "name\nbid\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{`ERROR: usage: \timing [on|off]`, `ERROR: usage: \format`, `ERROR: unknown command \nope`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Join(f.ran, "|") != "SHOW STREAMS" {
		t.Errorf(`ran %q: nothing runs after \q`, f.ran)
	}
}

func TestShellQuitWords(t *testing.T) {
	for _, w := range []string{"quit", "exit", " \\quit "} {
		f := &fakeSession{}
		runShell(t, f, lines(w, "SHOW STREAMS;"), nil)
		if len(f.ran) != 0 {
			t.Errorf("%q did not quit", w)
		}
	}
	// Inside a statement, quit is just a word.
	f := &fakeSession{}
	runShell(t, f, lines("SELECT", "quit;"), nil)
	if strings.Join(f.ran, "|") != "SELECT\nquit" {
		t.Errorf("ran %q", f.ran)
	}
}

func TestShellInterruptCancelsTheStatementOnly(t *testing.T) {
	interrupts := make(chan os.Signal, 1)
	interrupts <- syscall.SIGINT // stale: arrived before the statement, ignored
	started := make(chan struct{})
	f := &fakeSession{answers: map[string]fakeAnswer{
		"SELECT * FROM s EMIT CHANGES": {res: func(context.Context) *engine.Result {
			first := true
			next := func(ctx context.Context) ([][]types.Datum, error) {
				if first {
					first = false
					close(started)
					return [][]types.Datum{{types.StringDatum("+I"), types.IntDatum(1)}}, nil
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return &engine.Result{Kind: engine.ResultStream, Stream: engine.NewStream(next, nil),
				Columns: []engine.Column{{Name: "op", Type: types.VarcharT}, {Name: "a", Type: types.BigIntT}}}
		}},
	}}
	go func() {
		<-started
		interrupts <- syscall.SIGINT
	}()
	_, out, errOut := runShell(t, f, lines("SELECT * FROM s EMIT CHANGES;", "SHOW STREAMS;"), interrupts)
	if !strings.Contains(out, "| +I |      1 |\n") || !strings.Contains(out, "(1 change)\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if errOut != "ERROR: canceled by user\n" {
		t.Errorf("stderr %q", errOut)
	}
	if len(f.ran) != 2 {
		t.Errorf("ran %q: the shell goes on after an interrupt", f.ran)
	}
}

func TestShellFallsBackToPlainLines(t *testing.T) {
	var out bytes.Buffer
	f := &fakeSession{}
	fl := &fakeLines{items: []lineItem{{err: liner.ErrNotTerminalOutput}}}
	sh := &shell{
		r:     &runner{sess: f, p: &printer{out: &out, errOut: io.Discard}},
		lines: fl,
		in:    strings.NewReader("SHOW\nSTREAMS;\r\nSHOW TABLES;"),
		out:   &out,
	}
	if err := sh.loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.ran, "|") != "SHOW\nSTREAMS|SHOW TABLES" {
		t.Errorf("ran %q", f.ran)
	}
}
