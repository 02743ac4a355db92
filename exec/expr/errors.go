package expr

import (
	"errors"
	"fmt"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// ErrNotSupported is plan.ErrNotSupported: Compile wraps it for expressions,
// casts and functions eddy does not implement.
var ErrNotSupported = plan.ErrNotSupported

// RowErrorKind classifies a RowError.
type RowErrorKind uint8

// The kinds of row errors.
const (
	// OutOfRange: an arithmetic result or conversion does not fit its type
	// (integer overflow, a too large DECIMAL).
	OutOfRange RowErrorKind = iota + 1
	// BadCast: a value cannot be converted, such as 'abc' to BIGINT.
	BadCast
	// BadArgument: a function argument is invalid, such as a malformed
	// regular expression.
	BadArgument
)

// RowError is the failure of an expression on one row's values. Its message
// names the offending value, and Pos is where the expression that failed was
// written (when the plan knows it): "BIGINT value is out of range in
// '9223372036854775807 + 1' at 2:8", as eddy's other positioned errors
// read. Callers that skip bad rows (sources with on_error, INSERT) detect it
// with errors.As.
type RowError struct {
	Kind RowErrorKind
	Msg  string
	Pos  plan.Pos
}

var _ plan.ExprError = (*RowError)(nil)

// Error returns the message, with the position when it is known.
func (e *RowError) Error() string {
	if e.Pos.IsKnown() {
		return e.Msg + " at " + e.Pos.String()
	}
	return e.Msg
}

// ExprPos implements plan.ExprError.
func (e *RowError) ExprPos() plan.Pos { return e.Pos }

// Message implements plan.ExprError: the message without the position.
func (e *RowError) Message() string { return e.Msg }

// atPos gives err, when it is a RowError without a position, the position
// pos of the expression that raised it. It runs when an error is built, so
// evaluation pays nothing for positions.
func atPos(err error, pos plan.Pos) error {
	if re, ok := err.(*RowError); ok && !re.Pos.IsKnown() {
		re.Pos = pos
	}
	return err
}

// IsRowError reports whether err is (or wraps) a RowError.
func IsRowError(err error) bool {
	var re *RowError
	return errors.As(err, &re)
}

// outOfRange reports a result of type t that does not fit, computed as
// expr (for example "9223372036854775807 + 1").
func outOfRange(t types.T, expr string) error {
	name := t.Kind.String()
	if t.Physical() == types.PhysInt64 {
		name = "BIGINT" // every integer is computed as BIGINT
	}
	return &RowError{Kind: OutOfRange, Msg: fmt.Sprintf("%s value is out of range in '%s'", name, expr)}
}

// badCast reports a value (rendered as SQL) that cannot be cast to t.
func badCast(value string, t types.T) error {
	return &RowError{Kind: BadCast, Msg: fmt.Sprintf("cannot cast %s to %s", value, t)}
}

// badArgument reports an invalid function argument.
func badArgument(format string, args ...any) error {
	return &RowError{Kind: BadArgument, Msg: fmt.Sprintf(format, args...)}
}

// notSupported returns an error wrapping ErrNotSupported.
func notSupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotSupported, fmt.Sprintf(format, args...))
}

// sqlValue renders row i of v (of type t) as a SQL literal for messages.
func sqlValue(v *vector, i int, t types.T) string {
	return plan.FormatConst(datumAt(v, i, t), t)
}
