package client

import (
	"errors"
	"testing"

	"vitess.io/vitess/go/mysql/sqlerror"

	"github.com/eddysql/eddy/sql"
)

// TestRemoteErrorPositions feeds remoteError the messages the server
// writes for a statement that starts at 3:5 of a script, and checks the
// position is moved to the script in the message, in Position and in the
// snippet, and that messages without one stay as they are.
func TestRemoteErrorPositions(t *testing.T) {
	script := "SELECT 1;\n-- a comment\nxx; SELECT a,\n\tCAST(b AS BIGINT) FROM s WHERE b = 'at 10:30'"
	pieces := sql.Statements(script)
	stmt, err := sql.ParseOne(pieces[2].Text, pieces[2].Start)
	if err != nil {
		t.Fatal(err)
	}
	st := newStatement(stmt)
	if st.text != "SELECT a,\n\tCAST(b AS BIGINT) FROM s WHERE b = 'at 10:30'" {
		t.Fatalf("sent %q", st.text)
	}
	for _, tc := range []struct {
		name, msg string
		want      string // the message
		pos       sql.Pos
		snippet   string // "" for an Error without a position
	}{
		{
			name:    "a value that looks like a position, then the position",
			msg:     "cannot cast 'at 10:30' to BIGINT at 2:2\n\tCAST(b AS BIGINT) FROM s WHERE b = 'at 10:30'\n\t^",
			want:    "cannot cast 'at 10:30' to BIGINT at 4:2",
			pos:     sql.Pos{Offset: 38, Line: 4, Col: 2},
			snippet: "\tCAST(b AS BIGINT) FROM s WHERE b = 'at 10:30'\n\t^",
		},
		{
			name:    "a syntax error names its position first",
			msg:     "syntax error at 1:8: unexpected \"a\" at 2:1 maybe\nSELECT a,\n       ^",
			want:    "syntax error at 3:12: unexpected \"a\" at 2:1 maybe",
			pos:     sql.Pos{Offset: 34, Line: 3, Col: 12},
			snippet: "    SELECT a,\n           ^",
		},
		{
			name:    "a hint after the position",
			msg:     "unknown column 'a' at 1:8 (did you mean b?)\nSELECT a,\n       ^",
			want:    "unknown column 'a' at 3:12 (did you mean b?)",
			pos:     sql.Pos{Offset: 34, Line: 3, Col: 12},
			snippet: "    SELECT a,\n           ^",
		},
		{
			name: "no snippet: a position of another statement (a failed view's)",
			msg:  "sink k failed: cannot cast 'x' to BIGINT at 7:3",
			want: "sink k failed: cannot cast 'x' to BIGINT at 7:3",
		},
		{
			name: "a caret line without a position",
			msg:  "something odd\nhere\n^",
			want: "something odd\nhere\n^",
		},
		{
			name: "a message of several lines without a caret",
			msg:  "first\nsecond\nthird",
			want: "first\nsecond\nthird",
		},
	} {
		err := st.remoteError(&sqlerror.SQLError{Num: sqlerror.ERUnknownError, State: sqlerror.SSUnknownSQLState, Message: tc.msg})
		if err.Error() != tc.want {
			t.Errorf("%s: message %q, want %q", tc.name, err.Error(), tc.want)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != int(sqlerror.ERUnknownError) || e.State != sqlerror.SSUnknownSQLState {
			t.Errorf("%s: %#v is not an Error with the code and state", tc.name, err)
		}
		var pe sql.PosError
		positioned := errors.As(err, &pe)
		if positioned != (tc.snippet != "") {
			t.Errorf("%s: positioned %v", tc.name, positioned)
			continue
		}
		if positioned && (pe.Position() != tc.pos || pe.Snippet() != tc.snippet) {
			t.Errorf("%s: at %+v, want %+v; snippet\n%s\nwant\n%s", tc.name, pe.Position(), tc.pos, pe.Snippet(), tc.snippet)
		}
	}
	if err := st.remoteError(errors.New("not from the server")); err.Error() != "not from the server" {
		t.Errorf("a non-MySQL error: %v", err)
	}
}
