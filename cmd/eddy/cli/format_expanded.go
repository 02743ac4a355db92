package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// expandedMode is the shell's \x setting: whether tables print one block
// per row.
type expandedMode uint8

// The \x settings.
const (
	expandedOff  expandedMode = iota // a table
	expandedOn                       // a block per row
	expandedAuto                     // a block per row when the table is wider than the terminal
)

func (m expandedMode) String() string {
	return [...]string{"off", "on", "auto"}[m]
}

// parseExpanded parses the argument of \x: none flips on and off.
func parseExpanded(args []string, cur expandedMode) (expandedMode, bool) {
	if len(args) == 0 {
		if cur == expandedOff {
			return expandedOn, true
		}
		return expandedOff, true
	}
	if len(args) == 1 {
		switch strings.ToLower(args[0]) {
		case "on":
			return expandedOn, true
		case "off":
			return expandedOff, true
		case "auto":
			return expandedAuto, true
		}
	}
	return cur, false
}

// writeExpanded writes rows as psql's expanded display does: for each row
// a rule naming the record, then one line per column, its name padded to
// the longest name, " | ", and its value.
//
//	-[ RECORD 1 ]-----
//	id   | 1
//	name | alice
func writeExpanded(w io.Writer, cols []engine.Column, rows [][]types.Datum, first int) {
	names, nameW := expandedNames(cols)
	valW := 0
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = make([]string, len(cols))
		for j := range cols {
			cells[i][j] = cellText(r, j, cols[j].Type)
			valW = max(valW, runewidth.StringWidth(cells[i][j]))
		}
	}
	var b strings.Builder
	for i := range rows {
		writeRecord(&b, names, nameW, valW, first+i, cells[i])
	}
	io.WriteString(w, b.String())
}

// expandedNames returns the columns' names as printed and the widest.
func expandedNames(cols []engine.Column) ([]string, int) {
	names := make([]string, len(cols))
	w := 0
	for j, c := range cols {
		names[j] = escapeControl(c.Name)
		w = max(w, runewidth.StringWidth(names[j]))
	}
	return names, w
}

// writeRecord writes one record: its rule, as psql draws it (the record's
// label, dashes to the width of the names, "-+-" where the label leaves
// room for it, dashes to the width of the values), and its lines.
func writeRecord(b *strings.Builder, names []string, nameW, valW, n int, cells []string) {
	label := fmt.Sprintf("-[ RECORD %d ]", n)
	b.WriteString(label)
	reclen := len(label)
	if reclen < nameW {
		b.WriteString(strings.Repeat("-", nameW-reclen))
	}
	reclen -= nameW
	for _, c := range "-+-" {
		if reclen <= 0 {
			b.WriteRune(c)
		}
		reclen--
	}
	if rest := valW - max(reclen, 0); rest > 0 {
		b.WriteString(strings.Repeat("-", rest))
	}
	b.WriteByte('\n')
	for j, name := range names {
		b.WriteString(pad(name, nameW, false) + " | " + cells[j] + "\n")
	}
}

// expandedStream writes a push query's changes as records as they arrive,
// numbered across the whole stream; each batch is aligned on its own.
type expandedStream struct {
	w    io.Writer
	cols []engine.Column
	n    int
}

func (e *expandedStream) header(cols []engine.Column) { e.cols = cols }

func (e *expandedStream) rows(rows [][]types.Datum) {
	if len(rows) == 0 {
		return
	}
	writeExpanded(e.w, e.cols, rows, e.n+1)
	e.n += len(rows)
}

func (e *expandedStream) end() {}
