package rules

import (
	"hash/maphash"
	"math"

	"github.com/eddysql/eddy/planner/plan"
)

// exprEqual reports whether a and b are the same expression over the
// same columns, by ID (plan.SameExpr).
func exprEqual(a, b plan.Expr) bool { return plan.SameExpr(a, b, nil) }

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
