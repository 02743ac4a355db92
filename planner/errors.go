package planner

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/planner/plan"
	"github.com/eddysql/eddy/sql"
)

// BindError is an error in a statement's meaning (an unknown column, a type
// mismatch), pointing at the offending text.
type BindError struct {
	Pos  sql.Pos
	Msg  string
	Hint string // e.g. "did you mean 'price'?"
	Line string // the source line, for the caret
	// Cause is what the error is about when callers branch on it, such as
	// a *catalog.Error for an unknown or duplicate name (nil: nothing
	// more). Error does not print it: Msg says it for the user.
	Cause error
}

var _ sql.PosError = (*BindError)(nil)

// Unwrap returns the cause, for errors.Is and errors.As (catalog.IsCode).
func (e *BindError) Unwrap() error { return e.Cause }

// Error renders "msg at line:col (hint)".
func (e *BindError) Error() string {
	s := e.Msg + at(e.Pos)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Position implements sql.PosError.
func (e *BindError) Position() sql.Pos { return e.Pos }

// Snippet implements sql.PosError.
func (e *BindError) Snippet() string { return snippet(e.Line, e.Pos) }

// NotSupportedError reports a feature eddy does not run yet.
type NotSupportedError struct {
	Feature string
	Pos     sql.Pos
	Line    string
}

// Error renders "not supported yet: feature".
func (e *NotSupportedError) Error() string {
	return "not supported yet: " + e.Feature + at(e.Pos)
}

// Position implements sql.PosError.
func (e *NotSupportedError) Position() sql.Pos { return e.Pos }

// Snippet implements sql.PosError.
func (e *NotSupportedError) Snippet() string { return snippet(e.Line, e.Pos) }

// at renders a known position as ` at line:col`.
func at(p sql.Pos) string {
	if p.Line <= 0 {
		return ""
	}
	return fmt.Sprintf(" at %d:%d", p.Line, p.Col)
}

// snippet renders the source line of an error with a caret under its
// column, or nothing when the line is unknown.
func snippet(line string, p sql.Pos) string {
	if line == "" {
		return ""
	}
	return sql.Snippet(line, p.Col)
}

// errAt builds a BindError at a TiDB node's position.
func (b *Builder) errAt(n ast.Node, format string, args ...any) *BindError {
	return b.errAtPos(b.posOf(n), format, args...)
}

func (b *Builder) errAtPos(p sql.Pos, format string, args ...any) *BindError {
	return &BindError{Pos: p, Msg: fmt.Sprintf(format, args...), Line: b.lineAt(p)}
}

// unsupported builds a NotSupportedError at a node's position.
func (b *Builder) unsupported(n ast.Node, feature string) error {
	p := b.posOf(n)
	return &NotSupportedError{Feature: feature, Pos: p, Line: b.lineAt(p)}
}

// lineAt returns the source line of a known position, for an error's
// snippet.
func (b *Builder) lineAt(p sql.Pos) string {
	if b.src == nil || p.Line <= 0 {
		return ""
	}
	return b.src.Line(p)
}

// exprPos returns the position of a TiDB node for the plan expression bound
// from it (plan does not know sql.Pos).
func (b *Builder) exprPos(n ast.Node) plan.Pos {
	p := b.posOf(n)
	return plan.Pos{Offset: p.Offset, Line: p.Line, Col: p.Col}
}

// posOf returns the script position of a TiDB node; nodes without a
// recorded offset map to the statement's start.
func (b *Builder) posOf(n ast.Node) sql.Pos {
	if b.src == nil {
		return sql.Pos{}
	}
	if n == nil {
		return b.start
	}
	return b.src.Pos(n.OriginTextPosition())
}
