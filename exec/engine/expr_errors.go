package engine

import (
	"errors"

	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/sql"
)

// exprError is an expression's failure at run time (an expr.RowError that
// knows where the expression was written) in the statement whose text is
// src: it adds the snippet front ends print under a positioned error. Its
// message is the error's own, position included.
type exprError struct {
	err  error
	pos  sql.Pos
	line string
}

var _ sql.PosError = (*exprError)(nil)

func (e *exprError) Error() string { return e.err.Error() }
func (e *exprError) Unwrap() error { return e.err }

// Position implements sql.PosError.
func (e *exprError) Position() sql.Pos { return e.pos }

// Snippet implements sql.PosError.
func (e *exprError) Snippet() string { return sql.Snippet(e.line, e.pos.Col) }

// withSnippet returns err with the snippet of the failing expression when
// err is a positioned expr.RowError of a query planned from src (and has
// no snippet yet); otherwise err as is.
func withSnippet(err error, src *sql.Source) error {
	var re *expr.RowError
	var pe sql.PosError
	if err == nil || src == nil || !errors.As(err, &re) || !re.Pos.IsKnown() || errors.As(err, &pe) {
		return err
	}
	p := sql.Pos{Offset: re.Pos.Offset, Line: re.Pos.Line, Col: re.Pos.Col}
	return &exprError{err: err, pos: p, line: src.Line(p)}
}
