package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// fakeTerm is a terminal of a fixed size.
type fakeTerm struct{ cols, rows int }

func (t fakeTerm) size() (int, int, bool) { return t.cols, t.rows, true }

// fakePager records what it was asked to show.
type fakePager struct {
	commands, texts []string
}

func (f *fakePager) run(command, text string) error {
	f.commands, f.texts = append(f.commands, command), append(f.texts, text)
	return nil
}

// displayPrinter returns a table printer on a fake terminal of cols x rows
// with a fake pager.
func displayPrinter(cols, rows int, mode expandedMode) (*printer, *bytes.Buffer, *bytes.Buffer, *fakePager) {
	var out, errOut bytes.Buffer
	fp := &fakePager{}
	term := fakeTerm{cols, rows}
	p := &printer{out: &out, errOut: &errOut, display: display{expanded: mode, term: term,
		pager: &pager{on: true, command: "less -FRSX", term: term, run: fp.run}}}
	return p, &out, &errOut, fp
}

func people() *engine.Result {
	return &engine.Result{Kind: engine.ResultRows,
		Columns: []engine.Column{{Name: "id", Type: types.BigIntT}, {Name: "name", Type: types.VarcharT}, {Name: "a much longer column", Type: types.VarcharT}},
		Rows: [][]types.Datum{
			{types.IntDatum(1), types.StringDatum("alice"), types.StringDatum("x")},
			{types.IntDatum(22), types.NullDatum, types.StringDatum("two\nlines")},
		}}
}

// TestExpandedDisplay checks \x on: a record per row, as psql draws them.
func TestExpandedDisplay(t *testing.T) {
	p, out, _, fp := displayPrinter(80, 40, expandedOn)
	if err := p.printResult(context.Background(), people(), time.Now()); err != nil {
		t.Fatal(err)
	}
	want := `-[ RECORD 1 ]--------+-----------
id                   | 1
name                 | alice
a much longer column | x
-[ RECORD 2 ]--------+-----------
id                   | 22
name                 | NULL
a much longer column | two\nlines
(2 rows)
`
	if out.String() != want || len(fp.texts) != 0 {
		t.Errorf("got\n%s\nwant\n%s\npaged %q", out, want, fp.texts)
	}
	// A label longer than the names and values has no "-+-".
	out.Reset()
	res := &engine.Result{Kind: engine.ResultRows, Columns: []engine.Column{{Name: "a", Type: types.BigIntT}},
		Rows: [][]types.Datum{{types.IntDatum(7)}}}
	p.printResult(context.Background(), res, time.Now())
	if want := "-[ RECORD 1 ]\na | 7\n(1 row)\n"; out.String() != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

// TestExpandedAuto checks \x auto: a table when it fits the terminal,
// records when it is wider.
func TestExpandedAuto(t *testing.T) {
	for _, tt := range []struct {
		cols     int
		expanded bool
	}{{80, false}, {30, true}} {
		p, out, _, _ := displayPrinter(tt.cols, 100, expandedAuto)
		p.pager.on = false
		p.printResult(context.Background(), people(), time.Now())
		if got := strings.HasPrefix(out.String(), "-[ RECORD 1 ]"); got != tt.expanded {
			t.Errorf("%d columns: expanded %v, want %v:\n%s", tt.cols, got, tt.expanded, out)
		}
	}
}

// TestPagerForLongOrWideResults checks that a result taller or wider than
// the terminal goes to the pager, status line included, and a short one
// straight to stdout; \pager off and a non-terminal never page.
func TestPagerForLongOrWideResults(t *testing.T) {
	for _, tt := range []struct {
		name       string
		cols, rows int
		off        bool
		paged      bool
	}{
		{"fits", 80, 24, false, false},
		{"too long", 80, 6, false, true},
		{"too wide", 20, 24, false, true},
		{"off", 20, 6, true, false},
	} {
		p, out, _, fp := displayPrinter(tt.cols, tt.rows, expandedOff)
		p.pager.on = !tt.off
		p.printResult(context.Background(), people(), time.Now())
		if tt.paged {
			if len(fp.texts) != 1 || out.Len() != 0 || !strings.HasSuffix(fp.texts[0], "(2 rows)\n") || fp.commands[0] != "less -FRSX" {
				t.Errorf("%s: paged %q, stdout %q", tt.name, fp.texts, out)
			}
		} else if len(fp.texts) != 0 || !strings.HasSuffix(out.String(), "(2 rows)\n") {
			t.Errorf("%s: paged %q, stdout %q", tt.name, fp.texts, out)
		}
	}
	// Without a terminal there is no pager.
	var out bytes.Buffer
	fp := &fakePager{}
	p := &printer{out: &out, errOut: &out, display: display{pager: &pager{on: true, command: "less", run: fp.run}}}
	p.printResult(context.Background(), people(), time.Now())
	if len(fp.texts) != 0 {
		t.Errorf("paged without a terminal")
	}
}

// TestPagerFailureIsANotice checks that a pager that cannot run leaves
// the result on stdout, with a notice.
func TestPagerFailureIsANotice(t *testing.T) {
	var out, errOut bytes.Buffer
	term := fakeTerm{10, 5}
	p := &printer{out: &out, errOut: &errOut, display: display{term: term,
		pager: &pager{on: true, command: "no-such-pager", term: term, run: func(string, string) error { return errors.New("exit status 127") }}}}
	p.printResult(context.Background(), people(), time.Now())
	if !strings.HasSuffix(out.String(), "(2 rows)\n") || !strings.Contains(errOut.String(), `NOTICE: the pager "no-such-pager" failed`) {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

// TestNewPagerTakesPAGER checks where the pager's command comes from.
func TestNewPagerTakesPAGER(t *testing.T) {
	t.Setenv("PAGER", "more")
	if p := newPager(fakeTerm{80, 24}); p.command != "more" || !p.on {
		t.Errorf("$PAGER=more: %+v", p)
	}
	t.Setenv("PAGER", "")
	if p := newPager(fakeTerm{80, 24}); p.on {
		t.Errorf("an empty $PAGER turns paging off: %+v", p)
	}
}

// TestExpandedStream checks \x on for a push query: a record per change,
// numbered across batches.
func TestExpandedStream(t *testing.T) {
	res, _ := changes()
	p, out, _, _ := displayPrinter(80, 24, expandedOn)
	if err := p.printResult(context.Background(), res, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := `-[ RECORD 1 ]
op   | +I
n    | 1
name | a
-[ RECORD 2 ]------------
op   | -U
n    | 1
name | a
-[ RECORD 3 ]------------
op   | +U
n    | 1234567
name | a much longer name
(3 changes)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// syncBuffer is a buffer written from two goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStreamStatusLine checks the status line of a push query on a
// terminal stderr: drawn while the query waits, with its changes,
// watermark and lag, erased before rows are written and at the end.
func TestStreamStatusLine(t *testing.T) {
	defer func(every, after time.Duration) { statusEvery, statusAfter = every, after }(statusEvery, statusAfter)
	statusEvery, statusAfter = time.Millisecond, 0
	var out bytes.Buffer
	var errOut syncBuffer
	p := &printer{out: &out, errOut: &errOut, display: display{statusTerm: fakeTerm{60, 24}}}
	wm, _ := types.ParseTimestamp("2024-01-01 00:00:05")
	step := 0
	stream := engine.NewStream(func(ctx context.Context) ([][]types.Datum, error) {
		step++
		switch step {
		case 1:
			return [][]types.Datum{{types.StringDatum("+I"), types.IntDatum(1)}}, nil
		case 2:
			// Wait until the line, with the one change so far, is drawn.
			for !strings.Contains(errOut.String(), "1 change, watermark 2024-01-01 00:00:05.000, lag 1.5s") {
				time.Sleep(time.Millisecond)
			}
			return [][]types.Datum{{types.StringDatum("+I"), types.IntDatum(2)}}, nil
		}
		return nil, context.Canceled
	}, nil)
	stream.SetProgress(func() engine.StreamProgress {
		return engine.StreamProgress{Watermark: wm, HasWatermark: true, Lag: 1500 * time.Millisecond}
	})
	res := &engine.Result{Kind: engine.ResultStream, Stream: stream,
		Columns: []engine.Column{{Name: "op", Type: types.VarcharT}, {Name: "a", Type: types.BigIntT}}}
	p.printResult(context.Background(), res, time.Now())
	got := errOut.String()
	if !strings.HasPrefix(got, "\r1 change, watermark") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("stderr %q", got)
	}
	for _, line := range strings.Split(got, "\r") {
		if line = strings.TrimSuffix(line, "\x1b[K"); len(line) > 59 {
			t.Errorf("status line %q is wider than the terminal", line)
		}
	}
	if !strings.Contains(out.String(), "| +I |      2 |") {
		t.Errorf("stdout %q", out.String())
	}
}

// TestRunPager runs a real command as the pager.
func TestRunPager(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paged")
	if err := runPager("cat > '"+path+"'", "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "one\ntwo\n" {
		t.Errorf("the pager got %q, %v", data, err)
	}
	if err := runPager("exit 3", "x"); err == nil {
		t.Errorf("a failing pager is no error")
	}
}
