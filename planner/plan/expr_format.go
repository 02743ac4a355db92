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

// writeParen writes e, in parentheses when it binds more loosely than min.
func writeParen(b *strings.Builder, e Expr, min int) {
	if prec(e) < min {
		b.WriteByte('(')
		writeExpr(b, e)
		b.WriteByte(')')
		return
	}
	writeExpr(b, e)
}

func writeList(b *strings.Builder, es []Expr, sep string, min int) {
	for i, e := range es {
		if i > 0 {
			b.WriteString(sep)
		}
		writeParen(b, e, min)
	}
}

// exprString renders e. Every String method goes through one builder, so
// that printing an expression nested n deep costs its length, not the n²
// of concatenating each level's string into its parent's.
func exprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

// writeExpr writes e as SQL.
func writeExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *ColRef:
		b.WriteString(e.Name)
	case *InputRef:
		if e.Name != "" {
			b.WriteString(e.Name)
		} else {
			b.WriteString("$" + strconv.Itoa(e.Ord))
		}
	case *Const:
		b.WriteString(FormatConst(e.Val, e.Typ))
	case *Unary:
		b.WriteByte('-')
		writeParen(b, e.Arg, precUnary)
	case *Binary:
		p := prec(e)
		// Left-associative: the right operand needs parentheses at equal
		// precedence.
		writeParen(b, e.L, p)
		b.WriteString(" " + e.Op.String() + " ")
		writeParen(b, e.R, p+1)
	case *And:
		writeList(b, e.Args, " AND ", precAnd+1)
	case *Or:
		writeList(b, e.Args, " OR ", precOr+1)
	case *Not:
		b.WriteString("NOT ")
		writeParen(b, e.Arg, precNot)
	case *IsNull:
		writeParen(b, e.Arg, precCmp+1)
		b.WriteString(" IS ")
		writeNot(b, e.Negated)
		b.WriteString("NULL")
	case *In:
		writeTest(b, e.Arg, e.Negated, "IN (")
		writeList(b, e.List, ", ", 0)
		b.WriteByte(')')
	case *Like:
		writeTest(b, e.Arg, e.Negated, "LIKE ")
		writeParen(b, e.Pattern, precCmp+1)
		if e.Escape != '\\' && e.Escape != 0 {
			b.WriteString(" ESCAPE '" + string(e.Escape) + "'")
		}
	case *Case:
		b.WriteString("CASE")
		for _, w := range e.Whens {
			b.WriteString(" WHEN ")
			writeExpr(b, w.Cond)
			b.WriteString(" THEN ")
			writeExpr(b, w.Result)
		}
		if c, ok := e.Else.(*Const); !ok || !c.Val.Null {
			b.WriteString(" ELSE ")
			writeExpr(b, e.Else)
		}
		b.WriteString(" END")
	case *Cast:
		b.WriteString("CAST(")
		writeExpr(b, e.Arg)
		b.WriteString(" AS " + e.To.String() + ")")
	case *Func:
		if e.Name == "extract" && len(e.Args) == 2 {
			if u, ok := e.Args[0].(*Const); ok {
				b.WriteString("EXTRACT(" + u.Val.S + " FROM ")
				writeExpr(b, e.Args[1])
				b.WriteByte(')')
				return
			}
		}
		b.WriteString(strings.ToUpper(e.Name) + "(")
		writeList(b, e.Args, ", ", 0)
		b.WriteByte(')')
	default:
		b.WriteString(e.String())
	}
}

func (e *ColRef) String() string   { return e.Name }
func (e *InputRef) String() string { return exprString(e) }
func (e *Const) String() string    { return FormatConst(e.Val, e.Typ) }

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

func (e *Unary) String() string  { return exprString(e) }
func (e *Binary) String() string { return exprString(e) }
func (e *And) String() string    { return exprString(e) }
func (e *Or) String() string     { return exprString(e) }
func (e *Not) String() string    { return exprString(e) }
func (e *IsNull) String() string { return exprString(e) }
func (e *In) String() string     { return exprString(e) }
func (e *Like) String() string   { return exprString(e) }
func (e *Case) String() string   { return exprString(e) }
func (e *Cast) String() string   { return exprString(e) }
func (e *Func) String() string   { return exprString(e) }

// writeNot writes the NOT of a negated IS NULL, IN or LIKE.
func writeNot(b *strings.Builder, negated bool) {
	if negated {
		b.WriteString("NOT ")
	}
}

// writeTest writes the start of `arg [NOT] IN (...)` or `arg [NOT] LIKE
// pattern`, up to and including keyword.
func writeTest(b *strings.Builder, arg Expr, negated bool, keyword string) {
	writeParen(b, arg, precCmp+1)
	b.WriteByte(' ')
	writeNot(b, negated)
	b.WriteString(keyword)
}
