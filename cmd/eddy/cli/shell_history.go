package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/eddysql/eddy/sql"
)

// historyName is the shell's history file, in the user's home directory
// ($HOME), shared by every data directory as psql's ~/.psql_history is.
const historyName = ".eddy_history"

// historyMax is how many entries the history keeps: the newest.
const historyMax = 1000

// history is the shell's history of whole statements and meta commands,
// one entry each. Each entry is appended to the file as it is entered, so
// a shell that is killed loses nothing and two shells do not overwrite
// each other's entries; the file is trimmed to the newest historyMax
// entries when a shell loads it. An entry that holds a line break (inside
// a string literal) is written with it escaped.
type history struct {
	path string
	last string // the newest entry, not written twice in a row
	// failed is set once writing has failed: the notice is shown once.
	failed bool
	errOut io.Writer
}

// historyPath returns where the history is kept: ~/.eddy_history.
func historyPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, historyName), nil
}

// openHistory opens the history at path and returns it with its entries,
// oldest first. A file that cannot be read is a notice on errOut: the
// shell then starts without history, and tries to keep the new entries.
func openHistory(path string, errOut io.Writer) (*history, []string) {
	h := &history{path: path, errOut: errOut}
	entries, err := readHistory(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(errOut, "NOTICE: history not loaded: %v\n", err)
		return h, nil
	}
	if len(entries) > 0 {
		h.last = entries[len(entries)-1]
	}
	if len(entries) > historyMax {
		entries = entries[len(entries)-historyMax:]
		if err := writeHistory(path, entries); err != nil {
			h.fail(err)
		}
	}
	return h, entries
}

// add appends an entry to the file. Failing, it prints a notice the first
// time and goes on: the history is a convenience.
func (h *history) add(entry string) {
	if h == nil || h.failed || entry == h.last {
		return
	}
	h.last = entry
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		_, err = io.WriteString(f, escapeHistory(entry)+"\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		h.fail(err)
	}
}

func (h *history) fail(err error) {
	h.failed = true
	fmt.Fprintf(h.errOut, "NOTICE: history not saved: %v\n", err)
}

// openHistory loads the history (~/.eddy_history) into the line editor
// and keeps the shell's new entries there. Without a home directory the
// shell has no history, with a notice.
func (sh *shell) openHistory(ln lineReader, errOut io.Writer) {
	path, err := historyPath()
	if err != nil {
		fmt.Fprintf(errOut, "NOTICE: no history: %v\n", err)
		return
	}
	h, entries := openHistory(path, errOut)
	for _, e := range entries {
		ln.AppendHistory(e)
	}
	sh.hist = h
}

// remember adds an entry to the history: the line editor's, for the up
// arrow, and the file.
func (sh *shell) remember(entry string) {
	if strings.TrimSpace(strings.TrimSuffix(entry, ";")) == "" {
		return
	}
	sh.lines.AppendHistory(entry)
	sh.hist.add(entry)
}

// readHistory reads the entries of a history file.
func readHistory(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			entries = append(entries, unescapeHistory(line))
		}
	}
	return entries, sc.Err()
}

// writeHistory replaces the history file with entries, through a
// temporary file renamed over it.
func writeHistory(path string, entries []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), historyName+".*")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(tmp)
	for _, e := range entries {
		w.WriteString(escapeHistory(e) + "\n")
	}
	err = w.Flush()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// escapeHistory writes an entry on one line: line breaks as \n and \r,
// and a backslash doubled where it would otherwise be read as one of
// those escapes (before n, r, a backslash or a line break). Other
// backslashes, as in \timing, stay as they are.
func escapeHistory(s string) string {
	if !strings.ContainsAny(s, "\\\n\r") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\\':
			b.WriteByte('\\')
			if i+1 < len(s) && strings.IndexByte("nr\\\n\r", s[i+1]) >= 0 {
				b.WriteByte('\\')
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapeHistory reverses escapeHistory.
func unescapeHistory(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			continue
		}
		i++
	}
	return b.String()
}

// statementEntry is the history entry of a statement: its text on one
// line (comments dropped, white space made single spaces; a string keeps
// its line breaks) and its semicolon, so that recalling it runs it.
func statementEntry(text string) string {
	return strings.TrimSuffix(sql.NormalizeSpace(text), ";") + ";"
}
