package cost

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Per-row costs of evaluating expressions, in units of one integer
// comparison over a column (about a nanosecond per row in eddy's
// vectorized kernels). They rank filters and Calcs; the filter-ordering
// benchmark (docs/benchmarks.md) checks them against measurements.
const (
	CostColumn  = 0.0  // reading a column: its vector is shared
	CostArith   = 1.0  // integer or float arithmetic and comparisons
	CostDecimal = 4.0  // DECIMAL arithmetic and comparisons
	CostString  = 3.0  // comparing or hashing strings
	CostLike    = 15.0 // measured: LIKE '%x%' over 60-byte strings costs ~15 ns a row
	CostFunc    = 5.0  // a scalar function (string functions, date parts)
	CostCast    = 3.0  // a cast, parsing strings costs more (CostFunc)
	CostLogic   = 0.5  // combining booleans (AND, OR, NOT, IS NULL)
)

// ExprCost estimates the per-row cost of evaluating e.
func ExprCost(e plan.Expr) float64 {
	switch x := e.(type) {
	case nil, *plan.ColRef, *plan.InputRef, *plan.Const:
		return CostColumn
	case *plan.Binary:
		c := ExprCost(x.L) + ExprCost(x.R)
		switch t := x.L.Type(); {
		case t.Kind == types.Decimal || x.Typ.Kind == types.Decimal:
			c += CostDecimal
		case t.Physical() == types.PhysString:
			c += CostString
		default:
			c += CostArith
		}
		return c
	case *plan.Unary:
		return ExprCost(x.Arg) + CostArith
	case *plan.And:
		return sumCost(x.Args) + CostLogic*float64(len(x.Args))
	case *plan.Or:
		return sumCost(x.Args) + CostLogic*float64(len(x.Args))
	case *plan.Not:
		return ExprCost(x.Arg) + CostLogic
	case *plan.IsNull:
		return ExprCost(x.Arg) + CostLogic
	case *plan.In:
		per := CostArith
		if x.Arg.Type().Physical() == types.PhysString {
			per = CostString
		}
		return ExprCost(x.Arg) + sumCost(x.List) + per*float64(min(len(x.List), 8))
	case *plan.Like:
		return ExprCost(x.Arg) + ExprCost(x.Pattern) + CostLike
	case *plan.Case:
		c := ExprCost(x.Else)
		for _, w := range x.Whens {
			c += ExprCost(w.Cond) + ExprCost(w.Result)
		}
		return c
	case *plan.Cast:
		if x.Arg.Type().Physical() == types.PhysString || x.To.Physical() == types.PhysString {
			return ExprCost(x.Arg) + CostFunc
		}
		return ExprCost(x.Arg) + CostCast
	case *plan.Func:
		c, ok := funcCosts[x.Name]
		if !ok {
			c = CostFunc
		}
		return sumCost(x.Args) + c
	}
	return CostFunc
}

// funcCosts are the per-row costs of the functions that cost much more or
// less than CostFunc: regular expressions run an automaton over the
// string, formatting builds strings.
var funcCosts = map[string]float64{
	"regexp_extract": 150, "regexp_replace": 150, "regexp_like": 120, "regexp_instr": 120, "regexp_substr": 150,
	"date_format": 40, "str_to_date": 60, "concat": 10, "concat_ws": 12, "replace": 15, "substring": 8,
	"upper": 8, "lower": 8, "trim": 6, "lpad": 12, "rpad": 12, "split_part": 15,
	"abs": 1, "coalesce": 1, "ifnull": 1, "if": 2, "least": 2, "greatest": 2,
}

func sumCost(es []plan.Expr) float64 {
	c := 0.0
	for _, e := range es {
		c += ExprCost(e)
	}
	return c
}

// Rank orders the conjuncts of a filter: evaluating them in increasing
// rank — (selectivity - 1) / cost — minimizes the expected cost of a
// filter that evaluates each conjunct only on the rows the earlier ones
// kept (Hellerstein's predicate migration). A conjunct that drops many
// rows cheaply comes first.
func Rank(selectivity, cost float64) float64 {
	return (selectivity - 1) / max(cost, 0.1)
}

// FilterCost is the expected per-row cost of evaluating conjuncts in the
// given order, each on the rows the previous ones kept.
func FilterCost(sels, costs []float64) float64 {
	total, keep := 0.0, 1.0
	for i := range sels {
		total += keep * max(costs[i], 0.1)
		keep *= sels[i]
	}
	return total
}
