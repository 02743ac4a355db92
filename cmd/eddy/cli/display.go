package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// display holds the shell's display settings and what it knows of the
// terminal; its zero value (scripts, pipes) prints plain tables straight
// to the output.
type display struct {
	expanded expandedMode // \x
	pager    *pager       // \pager; nil: never page
	// term is stdout's terminal, statusTerm stderr's, for the status line
	// of push queries; nil when they are not terminals.
	term, statusTerm terminal
}

// newShell returns a shell running statements with r, reading lines from
// lines (and from in, without editing, when the output is no terminal)
// and writing to out. It answers \d and completes names by asking r's
// session.
func newShell(r *runner, lines lineReader, in io.Reader, out io.Writer) *shell {
	cat := &sqlCatalog{sess: r.sess}
	return &shell{r: r, lines: lines, in: in, out: out, cat: cat, comp: newCompleter(cat)}
}

// setTerminal tells the shell's printer which of stdout and stderr are
// terminals: stdout's pages long results and sizes \x auto, stderr's
// shows the status line of push queries.
func (sh *shell) setTerminal(out, errOut io.Writer) {
	p := sh.r.p
	p.term, p.statusTerm = terminalOf(out), terminalOf(errOut)
	p.pager = newPager(p.term)
}

// show writes a result's text to the output, through the pager when it
// is longer or wider than the terminal.
func (p *printer) show(text string) {
	if err := p.pager.show(p.out, text); err != nil {
		fmt.Fprintf(p.errOut, "NOTICE: %v\n", err)
	}
}

// writeRows writes rows as a table, or as records when \x is on, or auto
// and the table is wider than the terminal.
func (p *printer) writeRows(w io.Writer, cols []engine.Column, rows [][]types.Datum) {
	if p.expanded == expandedOn {
		writeExpanded(w, cols, rows, 1)
		return
	}
	var b strings.Builder
	writeTable(&b, cols, rows)
	if p.expanded == expandedAuto && len(rows) > 0 && !p.fitsTerminal(firstLineWidth(b.String())) {
		writeExpanded(w, cols, rows, 1)
		return
	}
	io.WriteString(w, b.String())
}

// newStreamWriter returns the rowWriter of a push query's changes: in the
// table format, records when \x is on, or auto and the table's first
// widths already pass the terminal's.
func (p *printer) newStreamWriter(w io.Writer, cols []engine.Column) rowWriter {
	if p.format == formatTable {
		if p.expanded == expandedOn {
			return &expandedStream{w: w}
		}
		if p.expanded == expandedAuto {
			if !p.fitsTerminal(firstLineWidth(tableBorder(streamWidths(cols)))) {
				return &expandedStream{w: w}
			}
		}
	}
	return p.newRowWriter(w)
}

// fitsTerminal reports whether a line of width columns fits stdout's
// terminal (always, when it is none).
func (p *printer) fitsTerminal(width int) bool {
	if p.term == nil {
		return true
	}
	cols, _, ok := p.term.size()
	return !ok || cols <= 0 || width <= cols
}

// firstLineWidth returns the display width of text's first line.
func firstLineWidth(text string) int {
	line, _, _ := strings.Cut(text, "\n")
	return runewidth.StringWidth(line)
}
