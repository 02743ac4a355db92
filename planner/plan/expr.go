package plan

import (
	"github.com/eddysql/eddy/catalog/types"
)

// ColumnID names a column of a logical plan. IDs are allocated by Metadata,
// start at 1, and never change during optimization.
type ColumnID int32

// Expr is a typed scalar expression. The family is closed: every
// implementation is in this package and carries the exprNode marker.
type Expr interface {
	// Type is the SQL type of the expression's value.
	Type() types.T
	// Nullable reports whether the expression can evaluate to NULL.
	Nullable() bool
	// Children returns the sub-expressions, in a fixed order.
	Children() []Expr
	// WithChildren returns a copy with the children replaced (same arity).
	WithChildren(c ...Expr) Expr
	// String renders the expression deterministically, in SQL-like syntax.
	String() string
	exprNode()
}

// ColRef refers to a column of the plan by ID.
type ColRef struct {
	ID   ColumnID
	Name string // for display only
	Typ  types.T
	Null bool
}

// InputRef refers to a column of the operator's input batch by ordinal. It
// appears only in physical plans.
type InputRef struct {
	Ord  int
	Name string // for display only
	Typ  types.T
	Null bool
}

// Const is a literal value; a typed NULL has Val.Null set.
type Const struct {
	Val types.Datum
	Typ types.T
}

// UnaryOp is an arithmetic unary operator.
type UnaryOp uint8

// The unary operators.
const (
	OpNeg UnaryOp = iota // -x
)

// Unary applies a unary arithmetic operator.
type Unary struct {
	Op  UnaryOp
	Arg Expr
	Typ types.T
	Pos Pos // where it was written, for run-time errors
}

// BinOp is a binary arithmetic or comparison operator.
type BinOp uint8

// The binary operators. Arithmetic operators take operands of the result type
// (the binder inserts casts), except that DECIMAL multiplication accepts any
// two scales, DATE/TIMESTAMP ± INTERVAL mixes types, and BIGINT × INTERVAL
// is an INTERVAL (the binder writes an interval too long for a constant so).
// Comparisons take operands of one type and return BOOLEAN.
const (
	OpAdd BinOp = iota
	OpSub
	OpMul
	OpDiv    // DOUBLE division; division by zero is NULL, as in MySQL
	OpIntDiv // integer division (DIV)
	OpMod
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpNullSafeEq // <=>, never NULL
)

var binOpText = [...]string{
	OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpIntDiv: "DIV", OpMod: "%",
	OpEq: "=", OpNe: "<>", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=", OpNullSafeEq: "<=>",
}

// String returns the operator's SQL spelling.
func (o BinOp) String() string { return binOpText[o] }

// IsComparison reports whether o is a comparison.
func (o BinOp) IsComparison() bool { return o >= OpEq }

// Commute returns the comparison with its operands swapped (a < b ⇔ b > a).
func (o BinOp) Commute() BinOp {
	switch o {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return o
}

// Binary applies a binary operator.
type Binary struct {
	Op   BinOp
	L, R Expr
	Typ  types.T
	Pos  Pos // where it was written, for run-time errors
}

// And is the three-valued conjunction of its arguments (at least two).
type And struct{ Args []Expr }

// Or is the three-valued disjunction of its arguments (at least two).
type Or struct{ Args []Expr }

// Not is three-valued negation.
type Not struct{ Arg Expr }

// IsNull tests for NULL (or, Negated, for NOT NULL). It is never NULL.
type IsNull struct {
	Arg     Expr
	Negated bool
}

// In tests membership of Arg in List (all of Arg's type), with SQL's NULL
// semantics: NULL when no element matches and Arg or some element is NULL.
type In struct {
	Arg     Expr
	List    []Expr
	Negated bool
}

// Like matches a string against a LIKE pattern with % and _ wildcards and
// the escape character Escape (backslash by default).
type Like struct {
	Arg, Pattern Expr
	Escape       byte
	Negated      bool
}

// When is one branch of a CASE.
type When struct {
	Cond, Result Expr
}

// Case is a searched CASE; a simple CASE is bound as equalities. Else is
// never nil (the binder fills in a typed NULL).
type Case struct {
	Whens []When
	Else  Expr
	Typ   types.T
}

// Cast converts Arg to type To. A conversion that fails at run time (such as
// a string that is not a number) is an error for the row — except for an
// Implicit cast of a string to DOUBLE, which the binder inserts where MySQL
// converts implicitly (comparing or computing with a string as a number):
// like MySQL it reads the string's longest numeric prefix, and 0 when there
// is none.
type Cast struct {
	Arg      Expr
	To       types.T
	Implicit bool
	Pos      Pos // where it was written (the converted value, for an implicit cast)
}

// Func calls a scalar built-in function by its lower-case name. The binder has
// checked the argument count and types; kernels are chosen by name.
type Func struct {
	Name string
	Args []Expr
	Typ  types.T
	Null bool
	Pos  Pos // where it was written, for run-time errors
}

func (*ColRef) exprNode()   {}
func (*InputRef) exprNode() {}
func (*Const) exprNode()    {}
func (*Unary) exprNode()    {}
func (*Binary) exprNode()   {}
func (*And) exprNode()      {}
func (*Or) exprNode()       {}
func (*Not) exprNode()      {}
func (*IsNull) exprNode()   {}
func (*In) exprNode()       {}
func (*Like) exprNode()     {}
func (*Case) exprNode()     {}
func (*Cast) exprNode()     {}
func (*Func) exprNode()     {}

var (
	_ Expr = (*ColRef)(nil)
	_ Expr = (*InputRef)(nil)
	_ Expr = (*Const)(nil)
	_ Expr = (*Unary)(nil)
	_ Expr = (*Binary)(nil)
	_ Expr = (*And)(nil)
	_ Expr = (*Or)(nil)
	_ Expr = (*Not)(nil)
	_ Expr = (*IsNull)(nil)
	_ Expr = (*In)(nil)
	_ Expr = (*Like)(nil)
	_ Expr = (*Case)(nil)
	_ Expr = (*Cast)(nil)
	_ Expr = (*Func)(nil)
)

// Type implementations.

func (e *ColRef) Type() types.T   { return e.Typ }
func (e *InputRef) Type() types.T { return e.Typ }
func (e *Const) Type() types.T    { return e.Typ }
func (e *Unary) Type() types.T    { return e.Typ }
func (e *Binary) Type() types.T   { return e.Typ }
func (e *And) Type() types.T      { return types.BoolT }
func (e *Or) Type() types.T       { return types.BoolT }
func (e *Not) Type() types.T      { return types.BoolT }
func (e *IsNull) Type() types.T   { return types.BoolT }
func (e *In) Type() types.T       { return types.BoolT }
func (e *Like) Type() types.T     { return types.BoolT }
func (e *Case) Type() types.T     { return e.Typ }
func (e *Cast) Type() types.T     { return e.To }
func (e *Func) Type() types.T     { return e.Typ }

// Nullable implementations.

func (e *ColRef) Nullable() bool   { return e.Null }
func (e *InputRef) Nullable() bool { return e.Null }
func (e *Const) Nullable() bool    { return e.Val.Null }
func (e *Unary) Nullable() bool    { return e.Arg.Nullable() }
func (e *Binary) Nullable() bool {
	switch e.Op {
	case OpNullSafeEq:
		return false
	case OpDiv, OpIntDiv, OpMod: // division by zero yields NULL
		return true
	}
	return e.L.Nullable() || e.R.Nullable()
}
func (e *And) Nullable() bool    { return anyNullable(e.Args) }
func (e *Or) Nullable() bool     { return anyNullable(e.Args) }
func (e *Not) Nullable() bool    { return e.Arg.Nullable() }
func (e *IsNull) Nullable() bool { return false }
func (e *In) Nullable() bool     { return e.Arg.Nullable() || anyNullable(e.List) }
func (e *Like) Nullable() bool   { return e.Arg.Nullable() || e.Pattern.Nullable() }
func (e *Case) Nullable() bool {
	if e.Else.Nullable() {
		return true
	}
	for _, w := range e.Whens {
		if w.Result.Nullable() {
			return true
		}
	}
	return false
}
func (e *Cast) Nullable() bool { return e.Arg.Nullable() }
func (e *Func) Nullable() bool { return e.Null }

func anyNullable(es []Expr) bool {
	for _, e := range es {
		if e.Nullable() {
			return true
		}
	}
	return false
}
