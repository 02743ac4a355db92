package sql

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PosError is implemented by every error that points into statement text:
// the parser's ParseError and the planner's bind errors. Front ends print
// Error() and then Snippet().
type PosError interface {
	error
	// Position is where in the script the error is.
	Position() Pos
	// Snippet is the offending source line and a caret under the column.
	Snippet() string
}

// ParseError is a syntax error, or a statement eddy does not support, at a
// position in the script. Line is the source line containing Pos.
type ParseError struct {
	Pos  Pos
	Msg  string
	Line string
}

var _ PosError = (*ParseError)(nil)

// Error returns a one-line message such as
// `syntax error at 1:15: unexpected "FORM"`.
func (e *ParseError) Error() string {
	return fmt.Sprintf("syntax error at %d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
}

// Position returns where the error is.
func (e *ParseError) Position() Pos { return e.Pos }

// Snippet returns the source line and a caret under the error's column.
func (e *ParseError) Snippet() string { return Snippet(e.Line, e.Pos.Col) }

// Snippet renders line and, below it, a caret under the 1-based byte column
// col. Tabs before the column are kept in the caret line so that the caret
// lines up however tabs are shown, and a multi-byte character counts as one
// column on screen. A column past the end of the line points just after it.
func Snippet(line string, col int) string {
	line = strings.TrimRight(line, "\r\n")
	n := max(0, min(col-1, len(line)))
	line, n = snippetWindow(line, n)
	var b strings.Builder
	b.Grow(2*len(line) + 2)
	b.WriteString(line)
	b.WriteByte('\n')
	prefix := line[:n]
	for len(prefix) > 0 {
		r, size := utf8.DecodeRuneInString(prefix)
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		prefix = prefix[size:]
	}
	b.WriteByte('^')
	return b.String()
}

// snippetWidth is the most bytes of a line a snippet shows: a longer line
// (a generated statement, a megabyte identifier) is cut to a window around
// the column, marked with "..." where it was cut.
const snippetWidth = 160

// snippetWindow cuts line to at most snippetWidth bytes around byte offset
// n, on character boundaries, and returns the cut line and n within it.
func snippetWindow(line string, n int) (string, int) {
	if len(line) <= snippetWidth {
		return line, n
	}
	lo := max(0, n-snippetWidth/2)
	hi := min(len(line), lo+snippetWidth)
	lo = max(0, hi-snippetWidth)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo++
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi--
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString("...")
	}
	shift := b.Len() - lo
	b.WriteString(line[lo:hi])
	if hi < len(line) {
		b.WriteString("...")
	}
	return b.String(), n + shift
}

// errAt returns a ParseError at script text offset k. The message is kept
// on one line.
func (sc *script) errAt(k int, format string, args ...any) *ParseError {
	msg := strings.NewReplacer("\r", " ", "\n", " ").Replace(fmt.Sprintf(format, args...))
	return &ParseError{Pos: sc.pos(k), Msg: msg, Line: sc.line(k)}
}

// shown renders a name from the user's text for a message: as is when it
// is plain, else quoted (a `quoted identifier` may hold spaces or newlines).
func shown(name string) string {
	for _, r := range name {
		if r <= ' ' || r == '"' || r == 0x7f || !unicode.IsPrint(r) {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// describe renders a token for an error message: its text in quotes, or
// "end of statement".
func describe(t token) string {
	if t.kind == tEOF {
		return "end of statement"
	}
	s := t.text
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// tidbNear matches the start of TiDB's syntax error messages:
// `line 1 column 17 near "bid" `.
var tidbNear = regexp.MustCompile(`^line (\d+) column (\d+) near "`)

// tidbTotal matches the length TiDB appends when it cuts the quoted text.
var tidbTotal = regexp.MustCompile(`"[^"]*\(total length (\d+)\)\s*$`)

// tidbError turns an error from TiDB's parser into a ParseError positioned
// in the script. TiDB quotes the text from the offending token to the end;
// its length gives the token's offset in the TiDB text, which Source maps
// back. When TiDB ran out of input, the error points at the first token
// after the text TiDB saw (often eddy syntax that was blanked).
func (p *parser) tidbError(err error) error {
	msg := err.Error()
	m := tidbNear.FindStringSubmatch(msg)
	if m == nil {
		return p.sc.errAt(p.src.lo, "%s", strings.TrimSpace(msg))
	}
	tidb := p.src.tidb
	rest := msg[len(m[0]):]
	off, extra := -1, ""
	if t := tidbTotal.FindStringSubmatch(rest); t != nil {
		if n, err := strconv.Atoi(t[1]); err == nil && n <= len(tidb) {
			off = len(tidb) - n
		}
	} else {
		for k := 0; k <= len(tidb); k++ {
			n := len(tidb) - k
			if len(rest) > n && rest[n] == '"' && rest[:n] == tidb[k:] {
				off = k
				extra = strings.TrimSpace(rest[len(tidb)-k+1:])
				break
			}
		}
	}
	if off < 0 {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		off = lineColOffset(tidb, line, col)
	}
	var k int
	if strings.TrimSpace(tidb[off:]) == "" {
		// TiDB wanted more input: point after the last text it saw.
		k = p.src.origOffset(len(strings.TrimRight(tidb, " \t\n\r")))
	} else {
		k = p.src.origOffset(off)
	}
	t := p.tokenAt(k)
	if extra != "" {
		return p.errAt(t, "%s", extra)
	}
	if t.kind == tEOF {
		return p.errAt(t, "unexpected end of statement")
	}
	return p.errAt(t, "unexpected %s", describe(t))
}

// tokenAt returns the token containing script offset k, or the first one
// after it.
func (p *parser) tokenAt(k int) token {
	for _, t := range p.toks {
		if t.end > k || t.kind == tEOF {
			return t
		}
	}
	return p.toks[len(p.toks)-1]
}

// lineColOffset converts TiDB's 1-based line and column into an offset.
func lineColOffset(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return min(off+max(col-1, 0), len(text))
}
