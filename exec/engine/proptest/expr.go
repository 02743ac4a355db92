package proptest

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// scopeCol is a column an expression may refer to, as the query writes it
// (qualified: "a.k").
type scopeCol struct {
	ref     string
	typ     Type
	inexact bool // a DOUBLE computed with rounding (AVG, division)
}

// exprGen writes random, well-typed expressions over the columns of a
// scope.
type exprGen struct {
	r    *rand.Rand
	cols []scopeCol
	// exact restricts DOUBLE expressions to arithmetic that cannot round
	// (sums, differences and integer multiples of values that are
	// multiples of 0.25), for aggregate arguments: a sum of rounded values
	// depends on the order it is taken in, and the plans may order rows
	// differently.
	exact bool
	feats Features
}

// colsOf returns the scope's columns of type t usable here.
func (e *exprGen) colsOf(t Type) []scopeCol {
	var out []scopeCol
	for _, c := range e.cols {
		if c.typ == t && !(e.exact && c.inexact) {
			out = append(out, c)
		}
	}
	return out
}

// has reports whether the scope has a column of type t.
func (e *exprGen) has(t Type) bool { return len(e.colsOf(t)) > 0 }

// value returns an expression of type t, nested at most depth levels.
func (e *exprGen) value(t Type, depth int) string {
	if t == Bool {
		return e.pred(depth)
	}
	if depth <= 0 || e.r.IntN(3) == 0 {
		return e.leaf(t)
	}
	switch t {
	case Int:
		return e.intExpr(depth - 1)
	case Double:
		return e.doubleExpr(depth - 1)
	case Decimal:
		return e.decimalExpr(depth - 1)
	case String:
		return e.stringExpr(depth - 1)
	case Time:
		return e.timeExpr(depth - 1)
	}
	return e.leaf(t)
}

// leaf returns a column of type t, or a literal.
func (e *exprGen) leaf(t Type) string {
	if cs := e.colsOf(t); len(cs) > 0 && e.r.IntN(8) > 0 {
		return cs[e.r.IntN(len(cs))].ref
	}
	return e.literal(t)
}

// literal returns a constant of type t from the data's domains.
func (e *exprGen) literal(t Type) string {
	switch t {
	case Int:
		return strconv.Itoa(e.r.IntN(15) - 2)
	case Double:
		return strconv.FormatFloat(float64(e.r.IntN(41)-20)/4, 'f', -1, 64) + "e0"
	case Decimal:
		return fmt.Sprintf("%d.%02d", e.r.IntN(20)-5, e.r.IntN(4)*25)
	case String:
		return quote(append(strDomain, "zz")[e.r.IntN(len(strDomain)+1)])
	case Bool:
		return []string{"TRUE", "FALSE"}[e.r.IntN(2)]
	case Time:
		return timeLiteral(epochMs + int64(e.r.IntN(20))*1000)
	}
	return "NULL"
}

// operand returns an expression of type t that reads a column when the
// scope has one of that type: the subject of a predicate, which would
// otherwise often be a constant the optimizer folds away.
func (e *exprGen) operand(t Type, depth int) string {
	if cs := e.colsOf(t); len(cs) > 0 && (depth <= 0 || e.r.IntN(2) == 0) {
		return cs[e.r.IntN(len(cs))].ref
	}
	return e.value(t, depth)
}

// numeric returns an expression of a random number type.
func (e *exprGen) numeric(depth int) (string, Type) {
	t := []Type{Int, Int, Double, Decimal}[e.r.IntN(4)]
	return e.value(t, depth), t
}

func (e *exprGen) intExpr(d int) string {
	a := func() string { return e.value(Int, d) }
	switch e.r.IntN(14) {
	case 0, 1:
		return e.arith(a(), "+", a())
	case 2:
		return e.arith(a(), "-", a())
	case 3:
		return e.arith(a(), "*", strconv.Itoa(e.r.IntN(4)))
	case 4:
		return e.arith(a(), "DIV", strconv.Itoa(1+e.r.IntN(3)))
	case 5:
		return e.arith(a(), "%", strconv.Itoa(2+e.r.IntN(3)))
	case 6:
		return e.caseExpr(Int, d)
	case 7:
		e.feats.add("expr.func")
		return "COALESCE(" + a() + ", " + e.literal(Int) + ")"
	case 8:
		e.feats.add("expr.cast")
		if e.r.IntN(2) == 0 {
			return "CAST(" + e.value(Double, d) + " AS BIGINT)"
		}
		return "CAST(" + e.value(Decimal, d) + " AS BIGINT)"
	case 9:
		e.feats.add("expr.func")
		return "CHAR_LENGTH(" + e.value(String, d) + ")"
	case 10:
		e.feats.add("expr.func")
		return []string{"GREATEST", "LEAST"}[e.r.IntN(2)] + "(" + a() + ", " + a() + ")"
	case 11:
		e.feats.add("expr.func")
		return "ABS(" + a() + ")"
	case 12:
		if e.has(Time) {
			e.feats.add("expr.func")
			return "EXTRACT(SECOND FROM " + e.value(Time, d) + ")"
		}
		return "(- " + a() + ")"
	default:
		e.feats.add("expr.func")
		return "IF(" + e.pred(d) + ", " + a() + ", " + a() + ")"
	}
}

// arith returns the arithmetic l op r, recording the feature.
func (e *exprGen) arith(l, op, r string) string {
	e.feats.add("expr.arith")
	return "(" + l + " " + op + " " + r + ")"
}

func (e *exprGen) doubleExpr(d int) string {
	a := func() string { return e.value(Double, d) }
	switch e.r.IntN(10) {
	case 0, 1:
		return e.arith(a(), "+", e.value([]Type{Double, Int}[e.r.IntN(2)], d))
	case 2:
		return e.arith(a(), "-", a())
	case 3:
		if e.exact {
			return e.arith(a(), "*", strconv.Itoa(e.r.IntN(4)-1))
		}
		x, _ := e.numeric(d)
		return e.arith(a(), "*", x)
	case 4:
		e.feats.add("expr.cast")
		return "CAST(" + e.value(Int, d) + " AS DOUBLE)"
	case 5:
		if e.exact {
			return "(- " + a() + ")"
		}
		x, _ := e.numeric(d)
		y, _ := e.numeric(d)
		return e.arith(x, "/", y)
	case 6:
		return e.caseExpr(Double, d)
	case 7:
		e.feats.add("expr.func")
		return "COALESCE(" + a() + ", " + e.literal(Double) + ")"
	case 8:
		e.feats.add("expr.func")
		return "ABS(" + a() + ")"
	default:
		if e.exact {
			return "(" + a() + " + " + a() + ")"
		}
		e.feats.add("expr.cast")
		return "CAST(" + e.value(Decimal, d) + " AS DOUBLE)"
	}
}

func (e *exprGen) decimalExpr(d int) string {
	a := func() string { return e.value(Decimal, d) }
	switch e.r.IntN(8) {
	case 0, 1:
		return e.arith(a(), "+", e.value([]Type{Decimal, Int}[e.r.IntN(2)], d))
	case 2:
		return e.arith(a(), "-", a())
	case 3:
		return e.arith(a(), "*", strconv.Itoa(e.r.IntN(4)-1))
	case 4:
		e.feats.add("expr.cast")
		return "CAST(" + e.value(Int, d) + " AS DECIMAL(10,2))"
	case 5:
		e.feats.add("expr.func")
		return "ROUND(" + a() + ", 1)"
	case 6:
		return e.caseExpr(Decimal, d)
	default:
		e.feats.add("expr.func")
		return "COALESCE(" + a() + ", " + e.literal(Decimal) + ")"
	}
}

func (e *exprGen) stringExpr(d int) string {
	a := func() string { return e.value(String, d) }
	e.feats.add("expr.func")
	switch e.r.IntN(9) {
	case 0:
		return "CONCAT(" + a() + ", " + a() + ")"
	case 1:
		return []string{"UPPER", "LOWER"}[e.r.IntN(2)] + "(" + a() + ")"
	case 2:
		return "SUBSTRING(" + a() + ", 1, " + strconv.Itoa(1+e.r.IntN(2)) + ")"
	case 3:
		e.feats.add("expr.cast")
		return "CAST(" + e.value(Int, d) + " AS CHAR)"
	case 4:
		return "COALESCE(" + a() + ", " + e.literal(String) + ")"
	case 5:
		return "LEFT(" + a() + ", 1)"
	case 6:
		return "REPLACE(" + a() + ", 'a', 'x')"
	case 7:
		return "IF(" + e.pred(d) + ", " + a() + ", " + a() + ")"
	default:
		return e.caseExpr(String, d)
	}
}

func (e *exprGen) timeExpr(d int) string {
	e.feats.add("expr.arith")
	op := []string{"+", "-"}[e.r.IntN(2)]
	return fmt.Sprintf("(%s %s INTERVAL '%d' SECOND)", e.value(Time, d), op, 1+e.r.IntN(5))
}

// caseExpr returns a CASE of type t, searched or simple, with or without
// ELSE (whose absence makes a NULL).
func (e *exprGen) caseExpr(t Type, d int) string {
	e.feats.add("expr.case")
	s := "CASE"
	if e.r.IntN(3) == 0 {
		s += " " + e.value(Int, d)
		for range 1 + e.r.IntN(2) {
			s += " WHEN " + e.literal(Int) + " THEN " + e.value(t, d)
		}
	} else {
		for range 1 + e.r.IntN(2) {
			s += " WHEN " + e.pred(d) + " THEN " + e.value(t, d)
		}
	}
	if e.r.IntN(3) > 0 {
		s += " ELSE " + e.value(t, d)
	}
	return s + " END"
}
