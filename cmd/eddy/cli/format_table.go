package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
)

// writeTable writes rows as an aligned ASCII table: a bordered header,
// numbers right-aligned, NULL as NULL.
//
//	+----+-------+
//	| id | name  |
//	+----+-------+
//	|  1 | alice |
//	+----+-------+
func writeTable(w io.Writer, cols []engine.Column, rows [][]types.Datum) {
	if len(cols) == 0 {
		return
	}
	cells := make([][]string, len(rows))
	widths := headerWidths(cols)
	for i, r := range rows {
		cells[i] = make([]string, len(cols))
		for j := range cols {
			c := cellText(r, j, cols[j].Type)
			cells[i][j] = c
			widths[j] = max(widths[j], runewidth.StringWidth(c))
		}
	}
	border := tableBorder(widths)
	io.WriteString(w, border)
	writeHeader(w, cols, widths)
	io.WriteString(w, border)
	for _, r := range cells {
		writeTableRow(w, cols, widths, r)
	}
	io.WriteString(w, border)
}

// tableStream writes a push query's rows as table lines as they arrive.
// Widths are not known in advance: each column starts as wide as its
// header or a typical value of its type, and widens only when a value
// does not fit, a text column with room to spare (widenText), and the
// header is drawn again at the new widths so that it stays in step with
// the rows below it.
type tableStream struct {
	w      io.Writer
	cols   []engine.Column
	widths []int
}

func (t *tableStream) header(cols []engine.Column) {
	t.cols, t.widths = cols, streamWidths(cols)
	t.writeHeader()
}

func (t *tableStream) writeHeader() {
	io.WriteString(t.w, tableBorder(t.widths))
	writeHeader(t.w, t.cols, t.widths)
	io.WriteString(t.w, tableBorder(t.widths))
}

func (t *tableStream) rows(rows [][]types.Datum) {
	cells := make([]string, len(t.cols))
	for _, r := range rows {
		wider := false
		for j, c := range t.cols {
			cells[j] = cellText(r, j, c.Type)
			if n := runewidth.StringWidth(cells[j]); n > t.widths[j] {
				t.widths[j], wider = widen(n, c.Type), true
			}
		}
		if wider {
			t.writeHeader()
		}
		writeTableRow(t.w, t.cols, t.widths, cells)
	}
}

func (t *tableStream) end() { io.WriteString(t.w, tableBorder(t.widths)) }

// streamWidths are the widths a push query's table starts with.
func streamWidths(cols []engine.Column) []int {
	widths := headerWidths(cols)
	for j, c := range cols {
		widths[j] = max(widths[j], typicalWidth(c.Type))
	}
	return widths
}

// widenText is the step a text column of a streamed table widens by: its
// values vary in length, and each widening draws the header again.
const widenText = 8

// widen returns the width a streamed column of type t takes for a value
// of width n that did not fit: n for types whose values have one width,
// n rounded up to a multiple of widenText for text.
func widen(n int, t types.T) int {
	if t.Physical() == types.PhysString {
		return (n + widenText - 1) / widenText * widenText
	}
	return n
}

// typicalWidth is the width a column of type t usually needs, so that a
// streamed table rarely has to widen.
func typicalWidth(t types.T) int {
	switch t.Kind {
	case types.Boolean:
		return 5
	case types.Date:
		return 10
	case types.Timestamp:
		if t.Fsp > 0 {
			return 20 + int(t.Fsp)
		}
		return 19
	case types.Decimal:
		return int(t.Precision) + 2
	}
	if t.IsNumeric() {
		return 6
	}
	return 0 // text: as wide as the header, then as the values
}

func headerWidths(cols []engine.Column) []int {
	widths := make([]int, len(cols))
	for j, c := range cols {
		widths[j] = runewidth.StringWidth(escapeControl(c.Name))
	}
	return widths
}

func tableBorder(widths []int) string {
	var b strings.Builder
	b.WriteByte('+')
	for _, w := range widths {
		b.WriteString(strings.Repeat("-", w+2))
		b.WriteByte('+')
	}
	b.WriteByte('\n')
	return b.String()
}

func writeHeader(w io.Writer, cols []engine.Column, widths []int) {
	var b strings.Builder
	b.WriteByte('|')
	for j, c := range cols {
		fmt.Fprintf(&b, " %s |", pad(escapeControl(c.Name), widths[j], false))
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

func writeTableRow(w io.Writer, cols []engine.Column, widths []int, cells []string) {
	var b strings.Builder
	b.WriteByte('|')
	for j, c := range cols {
		fmt.Fprintf(&b, " %s |", pad(cells[j], widths[j], c.Type.IsNumeric()))
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// pad pads s with spaces to width display columns, on the left when right
// is set.
func pad(s string, width int, right bool) string {
	n := width - runewidth.StringWidth(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// cellText renders value j of row r for people (types.Format), with control
// characters escaped so a value stays on its line.
func cellText(r []types.Datum, j int, t types.T) string {
	if j >= len(r) {
		return ""
	}
	return escapeControl(types.Format(r[j], t))
}

// escapeControl writes newlines, tabs and other control characters as
// escapes (\n, \t, \x01).
func escapeControl(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
