package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// The binder's typing rules, for callers that build expressions without
// SQL text: exec/expr's kernel fuzz test generates its expressions through
// them, so that they have exactly the shapes the binder gives the kernels
// (operands cast to their common type, DECIMAL sums one digit wider, DATE ±
// INTERVAL a DATE only for whole days, ...) and no copy of the rules can
// drift from these. Each is the method the binder itself uses, applied with
// no TiDB node: the expressions it builds, and its errors, carry the
// position of the statement's start (none for a builder without a source).

// Coerce converts e to t as the binder converts an operand or an argument:
// no cast where the representation is shared.
func (b *Builder) Coerce(e plan.Expr, t types.T) (plan.Expr, error) { return b.coerce(nil, e, t) }

// Cast is CAST(e AS t).
func (b *Builder) Cast(e plan.Expr, t types.T) (plan.Expr, error) { return b.cast(nil, e, t) }

// ComparisonType is the type two operands of types x and y are compared
// in (as the members of an IN list are).
func (b *Builder) ComparisonType(x, y types.T) (types.T, error) { return b.comparisonType(nil, x, y) }

// UnionType is the type of a value that may come from either operand (CASE
// branches, COALESCE).
func (b *Builder) UnionType(x, y types.T) (types.T, error) { return b.unionType(nil, x, y) }

// Compare binds l op r for a comparison operator op.
func (b *Builder) Compare(op plan.BinOp, l, r plan.Expr) (plan.Expr, error) {
	return b.compare(nil, op, l, r)
}

// Arith binds l op r for an arithmetic operator op, date and time
// arithmetic (DATE/TIMESTAMP ± INTERVAL) included.
func (b *Builder) Arith(op plan.BinOp, l, r plan.Expr) (plan.Expr, error) {
	return b.arith(nil, op, l, r)
}

// Negate binds -e.
func (b *Builder) Negate(e plan.Expr) (plan.Expr, error) { return b.negate(nil, nil, e) }

// ToBool converts a condition of the clause named (for the error) to
// BOOLEAN: a number is true when non-zero.
func (b *Builder) ToBool(e plan.Expr, clause string) (plan.Expr, error) {
	return b.toBool(nil, e, clause)
}

// Call binds a call of the built-in function name: typed by its Resolve
// rule, its arguments converted to the types the rule wants.
func (b *Builder) Call(name string, args ...plan.Expr) (plan.Expr, error) {
	return b.callBuiltin(nil, name, args, make([]ast.Node, len(args)))
}
