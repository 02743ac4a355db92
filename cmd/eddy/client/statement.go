package client

import (
	"fmt"

	"vitess.io/vitess/go/sqltypes"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// statement is one statement sent to the server: the parsed statement,
// and the text the server gets.
type statement struct {
	stmt sql.Stmt
	src  *sql.Source
	// text is the statement's text as written, from its first token to
	// its last. The server's positions are relative to it (line 1,
	// column 1 is its first byte); remoteError moves them to the script.
	text string
}

func newStatement(stmt sql.Stmt) *statement {
	src := stmt.Source()
	return &statement{stmt: stmt, src: src, text: src.Text()}
}

// result turns the server's answer into the engine's result: an OK packet
// into a ResultOK with the statement's tag, a result set into ResultRows.
func (st *statement) result(qr *sqltypes.Result) (*engine.Result, error) {
	if len(qr.Fields) == 0 {
		return &engine.Result{Kind: engine.ResultOK, Tag: okTag(st.stmt, qr.RowsAffected)}, nil
	}
	cols := columns(qr.Fields)
	// The server sends no tag for rows (the engine's, such as SELECT 3,
	// is not printed for them), so Tag stays empty.
	res := &engine.Result{Kind: engine.ResultRows, Columns: cols, Rows: make([][]types.Datum, len(qr.Rows))}
	_, res.Preformatted = st.stmt.(*sql.Explain)
	datums := make([]types.Datum, len(qr.Rows)*len(cols))
	for i, row := range qr.Rows {
		r := datums[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		if err := decodeRow(r, row, cols); err != nil {
			return nil, fmt.Errorf("reading the result from eddy: row %d: %w", i+1, err)
		}
		res.Rows[i] = r
	}
	return res, nil
}

// okTag returns the tag the engine gives a statement that returns no rows,
// which MySQL's OK packet does not carry: its kind, and for INSERT ...
// VALUES, UPDATE and DELETE the rows affected ("INSERT 3", "UPDATE 1");
// a continuous INSERT ... SELECT is "INSERT", and so is a copy into a
// table of no rows (the OK packet does not tell it from a continuous one).
func okTag(stmt sql.Stmt, affected uint64) string {
	switch st := stmt.(type) {
	case *sql.CreateStream:
		return "CREATE STREAM"
	case *sql.CreateTable:
		return "CREATE TABLE"
	case *sql.CreateView:
		return "CREATE MATERIALIZED VIEW"
	case *sql.CreateSink:
		return "CREATE SINK"
	case *sql.Insert:
		if st.Query != nil && affected == 0 {
			return "INSERT"
		}
		return fmt.Sprintf("INSERT %d", affected)
	case *sql.Update:
		return fmt.Sprintf("UPDATE %d", affected)
	case *sql.Delete:
		return fmt.Sprintf("DELETE %d", affected)
	case *sql.Drop:
		return "DROP " + st.Kind.String()
	case *sql.Alter:
		return "ALTER " + st.Kind.String()
	case *sql.Set:
		return "SET"
	case *sql.Flush:
		return "FLUSH"
	}
	return "OK"
}
