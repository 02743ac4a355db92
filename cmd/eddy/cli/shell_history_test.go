package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// historyShell runs a shell over items with its history in home ($HOME)
// and returns the line reader (its history is what the up arrow recalls),
// stdout and stderr.
func historyShell(t *testing.T, home string, items []lineItem) (*fakeLines, *fakeSession, string, string) {
	t.Helper()
	t.Setenv("HOME", home)
	var out, errOut bytes.Buffer
	f := &fakeSession{}
	fl := &fakeLines{items: items}
	sh := newShell(&runner{sess: f, p: &printer{out: &out, errOut: &errOut}}, fl, nil, &out)
	sh.openHistory(fl, &errOut)
	if err := sh.loop(context.Background()); err != nil {
		t.Fatalf("loop: %v", err)
	}
	return fl, f, out.String(), errOut.String()
}

// TestShellHistoryOfWholeStatements checks that a statement typed over
// several lines is one entry, on one line with its comments dropped, that
// meta commands are entries, and that the next shell recalls them from
// ~/.eddy_history.
func TestShellHistoryOfWholeStatements(t *testing.T) {
	home := t.TempDir()
	fl, _, _, errOut := historyShell(t, home, lines(
		"CREATE STREAM s (",
		"  a BIGINT, -- the key",
		"  b VARCHAR",
		");  SHOW STREAMS; SHOW",
		"TABLES;",
		`\timing off`,
		"SELECT 'two",
		"lines';",
		"SHOW STREAMS;",
	))
	want := []string{"CREATE STREAM s ( a BIGINT, b VARCHAR );", "SHOW STREAMS;", "SHOW TABLES;", `\timing off`,
		"SELECT 'two\nlines';", "SHOW STREAMS;"}
	if !slices.Equal(fl.history, want) {
		t.Errorf("history %q\nwant %q", fl.history, want)
	}
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
	data, err := os.ReadFile(filepath.Join(home, historyName))
	if err != nil {
		t.Fatal(err)
	}
	wantFile := "CREATE STREAM s ( a BIGINT, b VARCHAR );\nSHOW STREAMS;\nSHOW TABLES;\n\\timing off\nSELECT 'two\\nlines';\nSHOW STREAMS;\n"
	if string(data) != wantFile {
		t.Errorf("history file %q\nwant %q", data, wantFile)
	}
	// A second shell recalls them; a repeated entry is not written twice.
	fl, _, _, _ = historyShell(t, home, lines("SHOW STREAMS;", "FLUSH;"))
	want = append(want, "FLUSH;")
	if !slices.Equal(fl.history, want) {
		t.Errorf("second shell's history %q\nwant %q", fl.history, want)
	}
}

// TestShellHistoryKeepsTheNewest checks the cap: a shell that loads more
// than historyMax entries keeps the newest and trims the file.
func TestShellHistoryKeepsTheNewest(t *testing.T) {
	home := t.TempDir()
	var b strings.Builder
	for i := range historyMax + 5 {
		fmt.Fprintf(&b, "SELECT %d;\n", i)
	}
	path := filepath.Join(home, historyName)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	fl, _, _, _ := historyShell(t, home, nil)
	if len(fl.history) != historyMax || fl.history[0] != "SELECT 5;" || fl.history[historyMax-1] != fmt.Sprintf("SELECT %d;", historyMax+4) {
		t.Errorf("loaded %d entries, from %q to %q", len(fl.history), fl.history[0], fl.history[len(fl.history)-1])
	}
	entries, err := readHistory(path)
	if err != nil || len(entries) != historyMax || entries[0] != "SELECT 5;" {
		t.Errorf("file has %d entries from %q, %v", len(entries), entries[0], err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, %v", fi.Mode(), err)
	}
}

// TestShellHistoryUnwritable checks that a history file that cannot be
// written is a notice, shown once, and the shell goes on.
func TestShellHistoryUnwritable(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, historyName), 0o700); err != nil { // a directory: no file can be opened there
		t.Fatal(err)
	}
	fl, f, _, errOut := historyShell(t, home, lines("SHOW STREAMS;", "SHOW TABLES;"))
	if strings.Count(errOut, "NOTICE: history not saved") != 1 {
		t.Errorf("stderr %q: want one notice of the failed write", errOut)
	}
	if len(f.ran) != 2 || len(fl.history) != 2 {
		t.Errorf("ran %q, history %q", f.ran, fl.history)
	}
}

func TestHistoryEscapes(t *testing.T) {
	for _, s := range []string{"plain", `back\slash`, "two\nlines", "cr\r\n", `\n literally`, `ends with \`,
		`\\`, "\\\n", `\r\\n`, `\timing on`} {
		e := escapeHistory(s)
		if strings.ContainsAny(e, "\n\r") || unescapeHistory(e) != s {
			t.Errorf("escapeHistory(%q) = %q, back %q", s, e, unescapeHistory(e))
		}
	}
}
