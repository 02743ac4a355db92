package rules

import (
	"hash/maphash"
	"math"

	"github.com/eddysql/eddy/planner/plan"
)

// exprEqual reports whether a and b are the same expression: the same
// operators over the same columns (by ID) and the same constants (of the
// same type, bit for bit), so they compute the same value on every row.
// Display names are ignored. It says nothing about volatility: two calls
// of a volatile function are equal expressions yet may differ in value.
func exprEqual(a, b plan.Expr) bool {
	switch a := a.(type) {
	case *plan.ColRef:
		b, ok := b.(*plan.ColRef)
		return ok && a.ID == b.ID
	case *plan.InputRef:
		b, ok := b.(*plan.InputRef)
		return ok && a.Ord == b.Ord
	case *plan.Const:
		b, ok := b.(*plan.Const)
		return ok && a.Typ == b.Typ && a.Val == b.Val
	case *plan.Unary:
		b, ok := b.(*plan.Unary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && exprEqual(a.Arg, b.Arg)
	case *plan.Binary:
		b, ok := b.(*plan.Binary)
		return ok && a.Op == b.Op && a.Typ == b.Typ && exprEqual(a.L, b.L) && exprEqual(a.R, b.R)
	case *plan.And:
		b, ok := b.(*plan.And)
		return ok && exprsEqual(a.Args, b.Args)
	case *plan.Or:
		b, ok := b.(*plan.Or)
		return ok && exprsEqual(a.Args, b.Args)
	case *plan.Not:
		b, ok := b.(*plan.Not)
		return ok && exprEqual(a.Arg, b.Arg)
	case *plan.IsNull:
		b, ok := b.(*plan.IsNull)
		return ok && a.Negated == b.Negated && exprEqual(a.Arg, b.Arg)
	case *plan.In:
		b, ok := b.(*plan.In)
		return ok && a.Negated == b.Negated && exprEqual(a.Arg, b.Arg) && exprsEqual(a.List, b.List)
	case *plan.Like:
		b, ok := b.(*plan.Like)
		return ok && a.Negated == b.Negated && a.Escape == b.Escape && exprEqual(a.Arg, b.Arg) && exprEqual(a.Pattern, b.Pattern)
	case *plan.Case:
		b, ok := b.(*plan.Case)
		if !ok || a.Typ != b.Typ || len(a.Whens) != len(b.Whens) || !exprEqual(a.Else, b.Else) {
			return false
		}
		for i, w := range a.Whens {
			if !exprEqual(w.Cond, b.Whens[i].Cond) || !exprEqual(w.Result, b.Whens[i].Result) {
				return false
			}
		}
		return true
	case *plan.Cast:
		b, ok := b.(*plan.Cast)
		return ok && a.To == b.To && a.Implicit == b.Implicit && exprEqual(a.Arg, b.Arg)
	case *plan.Func:
		b, ok := b.(*plan.Func)
		return ok && a.Name == b.Name && a.Typ == b.Typ && exprsEqual(a.Args, b.Args)
	}
	return false
}

func exprsEqual(a, b []plan.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !exprEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// exprHash hashes e consistently with exprEqual: equal expressions hash
// alike (it reads a subset of what exprEqual compares, never more).
func exprHash(e plan.Expr) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * prime }
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.ColRef:
			mix(1)
			mix(uint64(x.ID))
		case *plan.InputRef:
			mix(2)
			mix(uint64(x.Ord))
		case *plan.Const:
			mix(3)
			mix(uint64(x.Val.I))
			mix(math.Float64bits(x.Val.F))
			mix(maphash.String(hashSeed, x.Val.S))
		case *plan.Unary:
			mix(4)
			mix(uint64(x.Op))
		case *plan.Binary:
			mix(5)
			mix(uint64(x.Op))
		case *plan.And:
			mix(6)
		case *plan.Or:
			mix(7)
		case *plan.Not:
			mix(8)
		case *plan.IsNull:
			mix(9)
		case *plan.In:
			mix(10)
			mix(uint64(len(x.List)))
		case *plan.Like:
			mix(11)
		case *plan.Case:
			mix(12)
		case *plan.Cast:
			mix(13)
		case *plan.Func:
			mix(14)
			mix(maphash.String(hashSeed, x.Name))
		}
		return true
	})
	return h
}

// hashSeed seeds the string hashes of exprHash. Hashes only bucket
// expressions within one optimization, so a per-process seed changes no
// result.
var hashSeed = maphash.MakeSeed()

// exprSet is a set of expressions that finds one equal to a given
// expression by its hash, where a list would compare with every member:
// de-duplicating a filter of thousands of conjuncts costs their number,
// not its square. A set of a few members compares them directly.
type exprSet struct {
	few    []plan.Expr
	byHash map[uint64][]plan.Expr
}

// exprSetHashFrom is the size from which an exprSet hashes: below it
// comparing with every member costs less than hashing.
const exprSetHashFrom = 8

// has reports whether the set holds an expression equal to e.
func (s *exprSet) has(e plan.Expr) bool {
	if s.byHash == nil {
		return hasConjunct(s.few, e)
	}
	for _, x := range s.byHash[exprHash(e)] {
		if exprEqual(x, e) {
			return true
		}
	}
	return false
}

// add puts e in the set.
func (s *exprSet) add(e plan.Expr) {
	if s.byHash == nil {
		if s.few = append(s.few, e); len(s.few) < exprSetHashFrom {
			return
		}
		s.byHash = map[uint64][]plan.Expr{}
		for _, x := range s.few {
			h := exprHash(x)
			s.byHash[h] = append(s.byHash[h], x)
		}
		return
	}
	h := exprHash(e)
	s.byHash[h] = append(s.byHash[h], e)
}
