package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/mattn/go-runewidth"
)

// terminal is the size of the terminal the shell's output goes to.
type terminal interface {
	// size returns the terminal's columns and rows; ok is false when it
	// cannot tell.
	size() (cols, rows int, ok bool)
}

// fdTerminal is the terminal open on a file descriptor.
type fdTerminal struct{ fd uintptr }

func (t fdTerminal) size() (int, int, bool) { return termSize(t.fd) }

// terminalOf returns the terminal w writes to, or nil when w is not a
// terminal (a file, a pipe, a buffer).
func terminalOf(w io.Writer) terminal {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if _, _, ok := termSize(f.Fd()); !ok {
		return nil
	}
	return fdTerminal{fd: f.Fd()}
}

// defaultPager is the pager used when $PAGER is not set, if it is on the
// PATH: -F quits when the text fits one screen, -R passes colours, -S
// chops long lines (so a wide table scrolls sideways instead of
// wrapping), -X leaves the text on the screen after quitting.
const defaultPager = "less -FRSX"

// pager shows results longer or wider than the terminal through a pager
// program, as psql does: only when stdout is a terminal, and while it is
// on (\pager on|off).
type pager struct {
	on      bool
	command string   // the pager's command line; "" when there is none
	term    terminal // stdout's terminal
	// run runs command with text on its standard input; a test replaces
	// it.
	run func(command, text string) error
}

// newPager returns the pager of a shell whose stdout is term (nil: not a
// terminal): $PAGER, or less -FRSX when less is on the PATH.
func newPager(term terminal) *pager {
	cmd, set := os.LookupEnv("PAGER")
	if !set {
		if _, err := exec.LookPath("less"); err == nil {
			cmd = defaultPager
		}
	}
	cmd = strings.TrimSpace(cmd)
	return &pager{on: cmd != "", command: cmd, term: term, run: runPager}
}

// needed reports whether text should go through the pager: it is on,
// stdout is a terminal, and the text has more lines than the terminal
// (less one for the prompt) or a line wider than it.
func (p *pager) needed(text string) bool {
	if p == nil || !p.on || p.command == "" || p.term == nil {
		return false
	}
	cols, rows, ok := p.term.size()
	if !ok || cols <= 0 || rows <= 0 {
		return false
	}
	lines := strings.Count(text, "\n")
	if lines >= rows-1 {
		return true
	}
	for line := range strings.Lines(text) {
		if runewidth.StringWidth(strings.TrimSuffix(line, "\n")) > cols {
			return true
		}
	}
	return false
}

// show writes text to out, through the pager when needed. When the pager
// cannot run, text goes to out and the error is returned for a notice.
func (p *pager) show(out io.Writer, text string) error {
	if p.needed(text) {
		err := p.run(p.command, text)
		if err == nil {
			return nil
		}
		io.WriteString(out, text)
		return fmt.Errorf("the pager %q failed: %w (\\pager off turns it off)", p.command, err)
	}
	_, err := io.WriteString(out, text)
	return err
}

// runPager runs command through the shell with text on its standard input
// and the terminal as its output, and waits for it.
func runPager(command, text string) error {
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
