package client

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/eddysql/eddy/sql"
)

// Error is an error the server returned for a statement: its MySQL error
// number and SQLSTATE, and eddy's message.
type Error struct {
	Code  int
	State string
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

// PosError is an Error that points into the statement: Msg names the
// script position (line:column) and Snippet shows it, exactly as the
// embedded engine's error does. It is a sql.PosError.
type PosError struct {
	Err  *Error
	Pos  sql.Pos
	Line string // the script line at Pos, for Snippet
}

var _ sql.PosError = (*PosError)(nil)

func (e *PosError) Error() string { return e.Err.Msg }
func (e *PosError) Unwrap() error { return e.Err }

// Position returns where in the script the error is.
func (e *PosError) Position() sql.Pos { return e.Pos }

// Snippet returns the script line and a caret under the error's column.
func (e *PosError) Snippet() string { return sql.Snippet(e.Line, e.Pos.Col) }

// remoteError turns the server's error for the statement into an Error,
// or a PosError when it points into the statement. The server writes a
// positioned error as its message, then the line and a caret under the
// column (server.toSQLError); its line:column count from the text it got,
// which starts at the statement's first token, so they are moved to the
// script, and the snippet is made again from the script's line (whose
// first line is indented to the statement's column, as the engine's is).
func (st *statement) remoteError(err error) error {
	var se *sqlerror.SQLError
	if !errors.As(err, &se) {
		return err
	}
	e := &Error{Code: int(se.Num), State: se.State, Msg: se.Message}
	body, ok := cutSnippet(se.Message)
	if !ok {
		return e
	}
	lo, hi, rel, ok := messagePos(body)
	if !ok {
		return e // a snippet without a position: keep the server's text
	}
	pos := st.scriptPos(rel)
	e.Msg = body[:lo] + strconv.Itoa(pos.Line) + ":" + strconv.Itoa(pos.Col) + body[hi:]
	return &PosError{Err: e, Pos: pos, Line: st.src.Line(pos)}
}

// cutSnippet returns msg without the snippet the server appends to a
// positioned error: a line, then a line of blanks and a caret.
func cutSnippet(msg string) (string, bool) {
	rest, caret, ok := cutLastLine(msg)
	if !ok || strings.TrimLeft(caret, " \t") != "^" {
		return msg, false
	}
	body, _, ok := cutLastLine(rest)
	return body, ok
}

// cutLastLine splits s at its last newline.
func cutLastLine(s string) (before, last string, ok bool) {
	i := strings.LastIndexByte(s, '\n')
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+1:], true
}

// posInMessage matches a position in an error message: "at 3:14".
var posInMessage = regexp.MustCompile(`\bat ([0-9]+):([0-9]+)\b`)

// messagePos finds the position an error message names and where it is
// in msg (msg[lo:hi] is "line:column"). A syntax error names it first
// ("syntax error at 1:15: ..."); eddy's other errors end with it ("... at
// 2:8", perhaps followed by a hint in parentheses), after any values they
// quote, so the last one is taken.
func messagePos(msg string) (lo, hi int, p sql.Pos, ok bool) {
	all := posInMessage.FindAllStringSubmatchIndex(msg, -1)
	if len(all) == 0 {
		return 0, 0, sql.Pos{}, false
	}
	m := all[len(all)-1]
	if strings.HasPrefix(msg, "syntax error at ") {
		m = all[0]
	}
	line, err1 := strconv.Atoi(msg[m[2]:m[3]])
	col, err2 := strconv.Atoi(msg[m[4]:m[5]])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return 0, 0, sql.Pos{}, false
	}
	return m[2], m[5], sql.Pos{Line: line, Col: col}, true
}

// scriptPos moves a position in the statement's text (line 1, column 1
// being its first byte) to the script, with its offset.
func (st *statement) scriptPos(rel sql.Pos) sql.Pos {
	start := st.src.Start()
	k := 0 // the offset of rel's line in the text
	for l := 1; l < rel.Line; l++ {
		i := strings.IndexByte(st.text[k:], '\n')
		if i < 0 {
			break
		}
		k += i + 1
	}
	k = min(k+rel.Col-1, len(st.text))
	p := sql.Pos{Offset: start.Offset + k, Line: start.Line + rel.Line - 1, Col: rel.Col}
	if rel.Line == 1 {
		p.Col += start.Col - 1
	}
	return p
}

// isInterrupted reports whether err is the server's answer to KILL QUERY.
func isInterrupted(err error) bool {
	var se *sqlerror.SQLError
	return errors.As(err, &se) && se.Num == sqlerror.ERQueryInterrupted
}

// isConnectionError reports whether err means the connection is gone: a
// client-side error of the protocol (CR_*, 2000 to 2999), or no MySQL
// error at all (the network's).
func isConnectionError(err error) bool {
	var se *sqlerror.SQLError
	if !errors.As(err, &se) {
		return true
	}
	return se.Num >= sqlerror.CRUnknownError && se.Num < 3000
}

// connectError returns the message of a failure to connect or of a lost
// connection without vitess's decorations (errno, SQLSTATE, "net.Dial(...)
// failed"), with a hint when nothing listens at the address.
func connectError(err error) error {
	var se *sqlerror.SQLError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Message
	if _, after, ok := strings.Cut(msg, ") failed: "); ok && strings.HasPrefix(msg, "net.Dial(") {
		msg = after
	}
	if strings.Contains(msg, "connection refused") {
		msg += " (is eddy serve running there?)"
	}
	return errors.New(msg)
}
