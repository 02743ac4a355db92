package plan

import "github.com/eddysql/eddy/catalog/types"

// CanFail reports whether evaluating e can fail on some row: a cast that
// parses or narrows, integer or DECIMAL arithmetic that can overflow, a
// function. A conjunct that can fail may be guarded by the conjuncts
// before it, which drop the rows it would fail on: whoever reorders a
// filter's conjuncts (the optimizer's OrderConjuncts, the executor's
// re-ranking) keeps such a conjunct in its place.
func CanFail(e Expr) bool {
	fails := false
	Walk(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Cast:
			fails = fails || !x.Implicit
		case *Unary:
			fails = fails || x.Typ.IsInteger()
		case *Binary:
			switch x.Op {
			case OpAdd, OpSub, OpMul, OpIntDiv, OpMod:
				fails = fails || x.Typ.IsInteger() || x.Typ.Kind == types.Decimal
			}
		case *Func:
			fails = true
		}
		return !fails
	})
	return fails
}
