package plan

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// Precedence levels for printing; a child binding more loosely than its parent
// is parenthesized.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp
	precAdd
	precMul
	precUnary
	precAtom
)

func prec(e Expr) int {
	switch e := e.(type) {
	case *Or:
		return precOr
	case *And:
		return precAnd
	case *Not:
		return precNot
	case *IsNull, *In, *Like:
		return precCmp
	case *Binary:
		switch {
		case e.Op.IsComparison():
			return precCmp
		case e.Op == OpAdd || e.Op == OpSub:
			return precAdd
		default:
			return precMul
		}
	case *Unary:
		return precUnary
	}
	return precAtom
}

func paren(e Expr, min int) string {
	if prec(e) < min {
		return "(" + e.String() + ")"
	}
	return e.String()
}

func joinExprs(es []Expr, sep string, min int) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = paren(e, min)
	}
	return strings.Join(parts, sep)
}

func (e *ColRef) String() string { return e.Name }

func (e *InputRef) String() string {
	if e.Name != "" {
		return e.Name
	}
	return "$" + strconv.Itoa(e.Ord)
}

func (e *Const) String() string { return FormatConst(e.Val, e.Typ) }

// FormatConst renders a literal as SQL.
func FormatConst(d types.Datum, t types.T) string {
	if d.Null {
		return "NULL"
	}
	switch t.Kind {
	case types.Varchar:
		return "'" + strings.ReplaceAll(d.S, "'", "''") + "'"
	case types.Date:
		return "DATE '" + types.Format(d, t) + "'"
	case types.Timestamp:
		return "TIMESTAMP '" + types.Format(d, t) + "'"
	case types.Boolean:
		if d.Bool() {
			return "TRUE"
		}
		return "FALSE"
	}
	return types.Format(d, t)
}

func (e *Unary) String() string { return "-" + paren(e.Arg, precUnary) }

func (e *Binary) String() string {
	p := prec(e)
	// Left-associative: the right operand needs parentheses at equal precedence.
	return paren(e.L, p) + " " + e.Op.String() + " " + paren(e.R, p+1)
}

func (e *And) String() string { return joinExprs(e.Args, " AND ", precAnd+1) }
func (e *Or) String() string  { return joinExprs(e.Args, " OR ", precOr+1) }
func (e *Not) String() string { return "NOT " + paren(e.Arg, precNot) }

func (e *IsNull) String() string {
	if e.Negated {
		return paren(e.Arg, precCmp+1) + " IS NOT NULL"
	}
	return paren(e.Arg, precCmp+1) + " IS NULL"
}

func (e *In) String() string {
	op := " IN ("
	if e.Negated {
		op = " NOT IN ("
	}
	return paren(e.Arg, precCmp+1) + op + joinExprs(e.List, ", ", 0) + ")"
}

func (e *Like) String() string {
	op := " LIKE "
	if e.Negated {
		op = " NOT LIKE "
	}
	s := paren(e.Arg, precCmp+1) + op + paren(e.Pattern, precCmp+1)
	if e.Escape != '\\' && e.Escape != 0 {
		s += " ESCAPE '" + string(e.Escape) + "'"
	}
	return s
}

func (e *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range e.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Result.String())
	}
	if c, ok := e.Else.(*Const); !ok || !c.Val.Null {
		b.WriteString(" ELSE " + e.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (e *Cast) String() string { return "CAST(" + e.Arg.String() + " AS " + e.To.String() + ")" }

func (e *Func) String() string {
	if e.Name == "extract" && len(e.Args) == 2 {
		if u, ok := e.Args[0].(*Const); ok {
			return "EXTRACT(" + u.Val.S + " FROM " + e.Args[1].String() + ")"
		}
	}
	return strings.ToUpper(e.Name) + "(" + joinExprs(e.Args, ", ", 0) + ")"
}
