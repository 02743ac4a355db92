package proptest

import (
	"strconv"
	"strings"
)

// comparisons are the comparison operators predicates use; <=> is
// NULL-safe equality, which is never NULL.
var comparisons = []string{"=", "<>", "<", "<=", ">", ">=", "<=>"}

// likePatterns are LIKE patterns that match some of the string domain.
var likePatterns = []string{"'a%'", "'%b'", "'_'", "'%a%'", "'B%'", "''", "'a_'", "'%'", "'_%'"}

// pred returns a BOOLEAN expression, nested at most depth levels.
func (e *exprGen) pred(depth int) string {
	if depth <= 0 {
		return e.atom(0)
	}
	switch e.r.IntN(10) {
	case 0:
		e.feats.add("pred.and")
		return "(" + e.pred(depth-1) + " AND " + e.pred(depth-1) + ")"
	case 1, 2, 3:
		e.feats.add("pred.or")
		return "(" + e.pred(depth-1) + " OR " + e.pred(depth-1) + ")"
	case 4:
		e.feats.add("pred.not")
		return "(NOT " + e.pred(depth-1) + ")"
	default:
		return e.atom(depth - 1)
	}
}

// atom returns a predicate that is not a conjunction, disjunction or
// negation: a comparison, IS NULL, IN, BETWEEN, LIKE, a boolean column or
// a truth test.
func (e *exprGen) atom(d int) string {
	switch e.r.IntN(16) {
	case 0, 1, 2, 3, 4:
		return e.comparison(d)
	case 5, 6:
		e.feats.add("pred.isnull")
		t := e.anyType()
		if e.r.IntN(3) == 0 {
			return "(" + e.operand(t, d) + " IS NULL)"
		}
		return "(" + e.operand(t, d) + " IS NOT NULL)"
	case 7, 8:
		return e.inList(d)
	case 9:
		e.feats.add("pred.between")
		t := []Type{Int, Double, Decimal, Time}[e.r.IntN(4)]
		lo, hi := e.literal(t), e.literal(t)
		if e.r.IntN(4) > 0 {
			lo, hi = e.ordered(t, lo, hi)
		}
		not := ""
		if e.r.IntN(3) == 0 {
			not = "NOT "
		}
		return "(" + e.operand(t, d) + " " + not + "BETWEEN " + lo + " AND " + hi + ")"
	case 10, 11:
		if !e.has(String) && e.r.IntN(2) == 0 {
			return e.comparison(d)
		}
		e.feats.add("pred.like")
		not := ""
		if e.r.IntN(4) == 0 {
			not = "NOT "
		}
		return "(" + e.operand(String, d) + " " + not + "LIKE " + likePatterns[e.r.IntN(len(likePatterns))] + ")"
	case 12:
		if cs := e.colsOf(Bool); len(cs) > 0 {
			return cs[e.r.IntN(len(cs))].ref
		}
		return e.comparison(d)
	case 13:
		e.feats.add("pred.truth")
		test := []string{"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"}[e.r.IntN(4)]
		return "(" + e.comparison(d) + " " + test + ")"
	case 14:
		if e.r.IntN(2) == 0 {
			t := []Type{Int, String}[e.r.IntN(2)]
			return e.orEqualities(e.operand(t, d), t)
		}
		e.feats.add("expr.func")
		return "COALESCE(" + e.comparison(d) + ", " + e.literal(Bool) + ")"
	default:
		return e.comparison(d)
	}
}

// anyType returns a type whose columns the scope has, preferring
// columns over literals.
func (e *exprGen) anyType() Type {
	for range 4 {
		t := []Type{Int, Double, Decimal, String, Bool, Time}[e.r.IntN(6)]
		if e.has(t) {
			return t
		}
	}
	return Int
}

// comparison compares two expressions of comparable types: two numbers
// (of any number types), two strings or two times. Equality is common on
// the small domains (integers, strings) and rare on the wide ones, where
// it would seldom hold; a column is never compared with itself.
func (e *exprGen) comparison(d int) string {
	e.feats.add("pred.cmp")
	t := e.anyType()
	op := e.compareOp(t)
	var l, r string
	switch t {
	case String, Time:
		l, r = e.operand(t, d), e.value(t, d)
	case Bool:
		l, r = e.operand(Bool, d), e.literal(Bool)
		if op != "=" && op != "<>" && op != "<=>" {
			op = "="
		}
	default:
		l = e.operand(t, d)
		switch e.r.IntN(4) {
		case 0, 1:
			r = e.literal(t)
		case 2:
			r = e.value(t, d)
		default:
			r, _ = e.numeric(d)
		}
	}
	if op == "<=>" {
		// NULL-safe equality is TRUE for two NULLs: compare with another
		// column, which may be NULL at the same time, or with NULL itself.
		e.feats.add("pred.nullsafe")
		if cs := e.colsOf(t); len(cs) > 1 && e.r.IntN(2) == 0 {
			r = cs[e.r.IntN(len(cs))].ref
		} else if e.r.IntN(3) == 0 {
			r = "NULL"
		}
	}
	if l == r {
		r = e.literal(t)
	}
	return "(" + l + " " + op + " " + r + ")"
}

// compareOp returns a comparison operator for operands of type t.
func (e *exprGen) compareOp(t Type) string {
	if t == Int || t == String || t == Bool {
		return comparisons[e.r.IntN(len(comparisons))]
	}
	if e.r.IntN(6) == 0 {
		return []string{"=", "<>", "<=>"}[e.r.IntN(3)]
	}
	return []string{"<", "<=", ">", ">="}[e.r.IntN(4)]
}

// inList returns `x [NOT] IN (...)` over a list of literals, sometimes
// with a NULL in it (which makes NOT IN never TRUE).
func (e *exprGen) inList(d int) string {
	e.feats.add("pred.in")
	t := []Type{Int, Int, String, String, Decimal}[e.r.IntN(5)]
	var items []string
	for range 1 + e.r.IntN(3) {
		items = append(items, e.literal(t))
	}
	if e.r.IntN(5) == 0 {
		items = append(items, "NULL")
	}
	not := ""
	if e.r.IntN(3) == 0 {
		not = "NOT "
	}
	return "(" + e.operand(t, d) + " " + not + "IN (" + strings.Join(items, ", ") + "))"
}

// ordered returns two literals of type t, the smaller first, so that most
// BETWEENs select something.
func (e *exprGen) ordered(t Type, a, b string) (string, string) {
	less := a < b
	switch t {
	case Int, Double, Decimal:
		fa, _ := strconv.ParseFloat(strings.TrimSuffix(a, "e0"), 64)
		fb, _ := strconv.ParseFloat(strings.TrimSuffix(b, "e0"), 64)
		less = fa < fb
	}
	if less {
		return a, b
	}
	return b, a
}

// nullSafe returns a NULL-safe equality that holds when its operands are
// both NULL: two columns of one type, or a column and NULL.
func (e *exprGen) nullSafe() string {
	e.feats.add("pred.nullsafe")
	t := e.anyType()
	l, r := e.operand(t, 0), "NULL"
	if cs := e.colsOf(t); len(cs) > 1 && e.r.IntN(2) == 0 {
		r = cs[e.r.IntN(len(cs))].ref
	}
	return "(" + l + " <=> " + r + ")"
}

// orEqualities returns a disjunction of equalities between x and
// constants, sometimes with an IN list or a NULL among them, which the
// optimizer may turn into one IN list.
func (e *exprGen) orEqualities(x string, t Type) string {
	e.feats.add("pred.or_equalities")
	var parts []string
	for range 2 + e.r.IntN(2) {
		switch n := e.r.IntN(8); {
		case n == 0:
			parts = append(parts, "("+x+" = NULL)")
		case n == 1:
			parts = append(parts, "("+x+" IN ("+e.literal(t)+", "+e.literal(t)+"))")
		default:
			parts = append(parts, "("+x+" = "+e.literal(t)+")")
		}
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}
