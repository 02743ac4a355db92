package expr_test

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/planner/plan"
)

// The reference evaluator computes a plan expression over one row of
// types.Datum values, by the semantics exec/expr documents (doc.go,
// docs/dialect-notes.md), written as directly as possible: integers and
// decimals in math/big, calendars with package time, LIKE as a regular
// expression. It shares no code with the vectorized kernels.
//
// Evaluation order is the one the kernels promise: a function's arguments
// left to right, all of them before the function (a strict function is
// NULL when one is NULL); AND and OR stop at the first FALSE or TRUE; CASE,
// IF, COALESCE and IFNULL evaluate a branch or fallback only for the rows
// that reach it; IN compares with its list in order and stops at a match.

// refError is a row error: its kind, and the position of the expression
// that raised it, are what the kernels must report.
type refError struct {
	kind expr.RowErrorKind
	msg  string
	pos  plan.Pos
}

// failure is the kind and position of a row error.
type failure struct {
	kind expr.RowErrorKind
	pos  plan.Pos
}

func (e *refError) failure() failure { return failure{e.kind, e.pos} }

func (e *refError) Error() string { return e.msg }

func outOfRange(format string, args ...any) error {
	return &refError{kind: expr.OutOfRange, msg: fmt.Sprintf(format, args...)}
}

func badCast(format string, args ...any) error {
	return &refError{kind: expr.BadCast, msg: fmt.Sprintf(format, args...)}
}

func badArgument(format string, args ...any) error {
	return &refError{kind: expr.BadArgument, msg: fmt.Sprintf(format, args...)}
}

var null = types.NullDatum

// refEval evaluates expressions over one row.
type refEval struct {
	row []types.Datum
}

// eval evaluates e; a row error raised by e itself (not by an argument)
// takes e's position.
func (x *refEval) eval(e plan.Expr) (types.Datum, error) {
	v, err := x.node(e)
	if re, ok := err.(*refError); ok && !re.pos.IsKnown() {
		switch e := e.(type) {
		case *plan.Unary:
			re.pos = e.Pos
		case *plan.Binary:
			re.pos = e.Pos
		case *plan.Cast:
			re.pos = e.Pos
		case *plan.Func:
			re.pos = e.Pos
		}
	}
	return v, err
}

func (x *refEval) node(e plan.Expr) (types.Datum, error) {
	switch e := e.(type) {
	case *plan.InputRef:
		return x.row[e.Ord], nil
	case *plan.Const:
		return e.Val, nil
	case *plan.Unary:
		return x.neg(e)
	case *plan.Binary:
		if e.Op.IsComparison() {
			return x.compare(e)
		}
		l, r, isNull, err := x.two(e.L, e.R)
		if err != nil || isNull {
			return null, err
		}
		return arithmetic(e.Op, l, r, e.L.Type(), e.R.Type(), e.Typ)
	case *plan.And:
		return x.logic(e.Args, true)
	case *plan.Or:
		return x.logic(e.Args, false)
	case *plan.Not:
		v, err := x.eval(e.Arg)
		if err != nil || v.Null {
			return null, err
		}
		return types.BoolDatum(!v.Bool()), nil
	case *plan.IsNull:
		v, err := x.eval(e.Arg)
		if err != nil {
			return null, err
		}
		return types.BoolDatum(v.Null != e.Negated), nil
	case *plan.In:
		return x.in(e)
	case *plan.Like:
		s, p, isNull, err := x.two(e.Arg, e.Pattern)
		if err != nil || isNull {
			return null, err
		}
		return types.BoolDatum(likeMatch(s.S, p.S, e.Escape) != e.Negated), nil
	case *plan.Case:
		for _, w := range e.Whens {
			c, err := x.eval(w.Cond)
			if err != nil {
				return null, err
			}
			if !c.Null && c.Bool() {
				return x.eval(w.Result)
			}
		}
		return x.eval(e.Else)
	case *plan.Cast:
		return x.cast(e)
	case *plan.Func:
		return x.call(e)
	}
	return null, fmt.Errorf("no reference semantics for %T", e)
}

// two evaluates two operands, left first; isNull when either is NULL.
func (x *refEval) two(a, b plan.Expr) (types.Datum, types.Datum, bool, error) {
	l, err := x.eval(a)
	if err != nil {
		return null, null, false, err
	}
	r, err := x.eval(b)
	if err != nil {
		return null, null, false, err
	}
	return l, r, l.Null || r.Null, nil
}

// all evaluates arguments left to right; isNull when one is NULL.
func (x *refEval) all(es []plan.Expr) ([]types.Datum, bool, error) {
	out := make([]types.Datum, len(es))
	isNull := false
	for i, e := range es {
		v, err := x.eval(e)
		if err != nil {
			return nil, false, err
		}
		out[i], isNull = v, isNull || v.Null
	}
	return out, isNull, nil
}

func (x *refEval) logic(args []plan.Expr, and bool) (types.Datum, error) {
	sawNull := false
	for _, a := range args {
		v, err := x.eval(a)
		if err != nil {
			return null, err
		}
		switch {
		case v.Null:
			sawNull = true
		case v.Bool() != and: // FALSE in an AND, TRUE in an OR
			return v, nil
		}
	}
	if sawNull {
		return null, nil
	}
	return types.BoolDatum(and), nil
}

func (x *refEval) in(e *plan.In) (types.Datum, error) {
	v, err := x.eval(e.Arg)
	if err != nil {
		return null, err
	}
	t := e.Arg.Type()
	sawNull := v.Null
	for _, el := range e.List {
		w, err := x.eval(el)
		if err != nil {
			return null, err
		}
		if w.Null {
			sawNull = true
			continue
		}
		if !v.Null && compareValues(plan.OpEq, v, w, t) {
			return types.BoolDatum(!e.Negated), nil
		}
	}
	if sawNull {
		return null, nil
	}
	return types.BoolDatum(e.Negated), nil
}

func (x *refEval) compare(e *plan.Binary) (types.Datum, error) {
	l, r, isNull, err := x.two(e.L, e.R)
	if err != nil {
		return null, err
	}
	t := e.L.Type()
	if t.Kind == types.Null {
		t = e.R.Type()
	}
	if e.Op == plan.OpNullSafeEq {
		if isNull {
			return types.BoolDatum(l.Null && r.Null), nil
		}
		return types.BoolDatum(compareValues(plan.OpEq, l, r, t)), nil
	}
	if isNull {
		return null, nil
	}
	return types.BoolDatum(compareValues(e.Op, l, r, t)), nil
}

// compareValues applies a comparison to two non-NULL values of type t.
// Doubles compare as IEEE numbers (NaN equals nothing).
func compareValues(op plan.BinOp, a, b types.Datum, t types.T) bool {
	if t.Physical() == types.PhysFloat64 {
		x, y := a.F, b.F
		switch op {
		case plan.OpEq:
			return x == y
		case plan.OpNe:
			return x != y
		case plan.OpLt:
			return x < y
		case plan.OpLe:
			return x <= y
		case plan.OpGt:
			return x > y
		}
		return x >= y
	}
	c := compare3(a, b, t)
	switch op {
	case plan.OpEq:
		return c == 0
	case plan.OpNe:
		return c != 0
	case plan.OpLt:
		return c < 0
	case plan.OpLe:
		return c <= 0
	case plan.OpGt:
		return c > 0
	}
	return c >= 0
}

// compare3 orders two non-NULL values (doubles by IEEE <, > only).
func compare3(a, b types.Datum, t types.T) int {
	switch t.Physical() {
	case types.PhysFloat64:
		return b2i(a.F > b.F) - b2i(a.F < b.F)
	case types.PhysDecimal:
		return a.D.BigInt().Cmp(b.D.BigInt())
	case types.PhysString:
		return strings.Compare(a.S, b.S)
	}
	return b2i(a.I > b.I) - b2i(a.I < b.I)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (x *refEval) neg(e *plan.Unary) (types.Datum, error) {
	v, err := x.eval(e.Arg)
	if err != nil || v.Null {
		return null, err
	}
	switch e.Typ.Physical() {
	case types.PhysFloat64:
		return types.FloatDatum(-v.F), nil
	case types.PhysDecimal:
		return types.DecimalDatum(decimal128.FromBigInt(new(big.Int).Neg(v.D.BigInt()))), nil
	}
	if v.I == math.MinInt64 {
		return null, outOfRange("-(%d)", v.I)
	}
	return types.IntDatum(-v.I), nil
}

// likeMatch matches s against a LIKE pattern: % any run of characters, _
// one character, esc makes the next character literal; bytes compare
// exactly. It translates the pattern into a regular expression.
func likeMatch(s, pat string, esc byte) bool {
	var re strings.Builder
	re.WriteString(`(?s)\A`)
	var lit []byte
	flush := func() {
		re.WriteString(regexp.QuoteMeta(string(lit)))
		lit = lit[:0]
	}
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == esc && i+1 < len(pat):
			i++
			lit = append(lit, pat[i])
		case c == '%':
			flush()
			re.WriteString(`.*`)
		case c == '_':
			flush()
			re.WriteString(`.`)
		default:
			lit = append(lit, c)
		}
	}
	flush()
	re.WriteString(`\z`)
	return regexp.MustCompile(re.String()).MatchString(s)
}
