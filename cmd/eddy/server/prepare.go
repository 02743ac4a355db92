package server

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/mysql"
	"vitess.io/vitess/go/mysql/sqlerror"
	"vitess.io/vitess/go/sqltypes"
	querypb "vitess.io/vitess/go/vt/proto/query"

	"github.com/eddysql/eddy/sql"
)

// Prepared statements (COM_STMT_PREPARE and COM_STMT_EXECUTE, what
// database/sql drivers send for a statement with arguments) are bound on
// the server: each '?' of the statement's text is replaced by its value
// written as a SQL literal, and the text runs as a COM_QUERY's would. Its
// result's columns are known only when it runs, so the prepare answers
// with none (clients read them from the execute's result set).

// ComPrepare checks that query is one statement of a size the limits
// allow and returns its number of parameters.
func (h *handler) ComPrepare(c *mysql.Conn, query string) ([]*querypb.Field, uint16, error) {
	cn := h.conn(c)
	if cn == nil {
		return nil, 0, errClosing
	}
	if err := cn.checkSize(query); err != nil {
		return nil, 0, err
	}
	if n := len(sql.Statements(query)); n != 1 {
		return nil, 0, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState,
			fmt.Sprintf("a prepared statement is one statement, not %d", n))
	}
	n := len(sql.Placeholders(query))
	if n > 65535 {
		return nil, 0, sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSClientError,
			"Prepared statement contains too many placeholders")
	}
	return nil, uint16(n), nil
}

// ComStmtExecute runs a prepared statement with its parameters' values.
func (h *handler) ComStmtExecute(c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	cn := h.conn(c)
	if cn == nil {
		return errClosing
	}
	text, err := bindParams(prepare.PrepareStmt, prepare.BindVars)
	if err != nil {
		return err
	}
	if err := cn.checkSize(text); err != nil {
		return err
	}
	pieces := sql.Statements(text)
	if len(pieces) != 1 {
		return sqlerror.NewSQLError(sqlerror.ERUnknownError, sqlerror.SSUnknownSQLState, "a prepared statement is one statement")
	}
	err = cn.run(pieces[0], func(res *sqltypes.Result, _ bool) error {
		if err := callback(res); err != nil {
			return &writeError{err}
		}
		return nil
	})
	if err != nil {
		return toSQLError(err)
	}
	return nil
}

// bindParams returns text with its i-th parameter marker replaced by the
// literal of vars["v<i+1>"], as vitess names a COM_STMT_EXECUTE's values.
func bindParams(text string, vars map[string]*querypb.BindVariable) (string, error) {
	at := sql.Placeholders(text)
	if len(at) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text) + 8*len(at))
	last := 0
	for i, off := range at {
		bv := vars[fmt.Sprintf("v%d", i+1)]
		if bv == nil {
			return "", sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState,
				fmt.Sprintf("Incorrect arguments to EXECUTE: parameter %d has no value", i+1))
		}
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return "", sqlerror.NewSQLError(sqlerror.ERWrongArguments, sqlerror.SSUnknownSQLState,
				fmt.Sprintf("Incorrect arguments to EXECUTE: parameter %d: %v", i+1, err))
		}
		b.WriteString(text[last:off])
		writeLiteral(&b, v)
		last = off + 1
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// writeLiteral writes v as a SQL literal: NULL, a number as it is, and
// anything else (text, bytes, dates and times) as a quoted string, which
// eddy casts to the type its place needs.
func writeLiteral(b *strings.Builder, v sqltypes.Value) {
	switch {
	case v.IsNull():
		b.WriteString("NULL")
	case v.IsIntegral() || v.IsFloat() || v.Type() == sqltypes.Decimal:
		b.WriteString(v.ToString())
	default:
		b.WriteByte('\'')
		raw := v.Raw()
		for _, c := range raw {
			switch c {
			case '\'':
				b.WriteString("''")
			case '\\':
				b.WriteString(`\\`)
			case 0:
				b.WriteString(`\0`)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
	}
}
