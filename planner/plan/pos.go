package plan

import "strconv"

// Pos is where in the SQL script an expression was written: the byte
// offset and the 1-based line and column of its first character, as
// sql.Pos has them (plan does not import the parser). The zero Pos is
// unknown: an expression the planner or a rule made up, or a plan built
// without text. The binder sets it on the expressions that can fail at run
// time (arithmetic, casts, function calls), and rewrites keep it, so that
// exec/expr reports a failure at the expression that failed.
type Pos struct {
	Offset, Line, Col int
}

// IsKnown reports whether p points into a script.
func (p Pos) IsKnown() bool { return p.Line > 0 }

// String renders p as line:column, as eddy's positioned errors show it.
func (p Pos) String() string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// ExprError is the failure of an expression on some row's values, at the
// position of the expression that failed: exec/expr's RowError. The
// planner, which cannot import exec/expr, reads INSERT values' failures
// through it.
type ExprError interface {
	error
	// ExprPos is where the failing expression was written; unknown for
	// one the planner made up.
	ExprPos() Pos
	// Message is the error without its position.
	Message() string
}
