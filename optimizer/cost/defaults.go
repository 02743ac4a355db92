package cost

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Defaults used when the catalog has no statistics. They are deliberately
// round numbers: their job is to rank alternatives sensibly, not to predict.
const (
	// DefaultStreamRate is the assumed rate of a stream without statistics:
	// a modest event stream.
	DefaultStreamRate = 1000.0
	// DefaultSnapshotRows is the assumed size of a bounded input read once
	// (a file, a snapshot); its "rate" is taken as rows per second of reading.
	DefaultSnapshotRows = 10000.0
	// DefaultDistinct is the assumed number of distinct values of a column.
	DefaultDistinct = 1000.0
	// SelEq is the selectivity of an equality with a constant (1/DefaultDistinct
	// would be too optimistic for skewed data; Selinger's 1/10).
	SelEq = 0.1
	// SelRange is the selectivity of a range comparison (Selinger's 1/3).
	SelRange = 1.0 / 3
	// SelLike is the selectivity of LIKE.
	SelLike = 0.25
	// SelNull is the selectivity of IS NULL.
	SelNull = 0.1
	// SelOther is the selectivity of any other predicate.
	SelOther = 0.5
)

// SourceRate estimates the output rate of a scan of o: a bounded source's
// rows as its connector estimates them (catalog.SourceTraits: a bounded
// nexmark stream's follow from its events); otherwise the defaults.
func SourceRate(o *catalog.Object, bounded bool) float64 {
	if bounded {
		if o.Traits.Rows > 0 {
			return o.Traits.Rows
		}
		return DefaultSnapshotRows
	}
	return DefaultStreamRate
}

// Selectivity estimates the fraction of rows for which pred is TRUE.
func Selectivity(pred plan.Expr) float64 {
	switch e := pred.(type) {
	case nil:
		return 1
	case *plan.And:
		s := 1.0
		for _, a := range e.Args {
			s *= Selectivity(a)
		}
		return s
	case *plan.Or:
		miss := 1.0
		for _, a := range e.Args {
			miss *= 1 - Selectivity(a)
		}
		return 1 - miss
	case *plan.Not:
		return 1 - Selectivity(e.Arg)
	case *plan.Binary:
		switch e.Op {
		case plan.OpEq, plan.OpNullSafeEq:
			return SelEq
		case plan.OpNe:
			return 1 - SelEq
		case plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe:
			return SelRange
		}
	case *plan.In:
		s := SelEq * float64(len(e.List))
		if s > 1 {
			s = 1
		}
		if e.Negated {
			return 1 - s
		}
		return s
	case *plan.Like:
		if e.Negated {
			return 1 - SelLike
		}
		return SelLike
	case *plan.IsNull:
		if e.Negated {
			return 1 - SelNull
		}
		return SelNull
	case *plan.Const:
		if e.Val.Null || (e.Typ.Kind == types.Boolean && !e.Val.Bool()) {
			return 0
		}
		return 1
	}
	return SelOther
}

// Width estimates the bytes of one value of type t in memory.
func Width(t types.T) float64 {
	switch t.Physical() {
	case types.PhysBool:
		return 1
	case types.PhysDecimal:
		return 16
	case types.PhysString:
		return 24
	case types.PhysDate32:
		return 4
	}
	return 8
}

// RowWidth estimates the bytes of a row of the given types.
func RowWidth(ts []types.T) float64 {
	w := 0.0
	for _, t := range ts {
		w += Width(t)
	}
	return w
}

// GroupCount estimates the distinct groups of nKeys grouping columns: one
// for a global aggregate, DefaultDistinct per key column otherwise, capped
// at the input's size when it is bounded.
func GroupCount(nKeys int, inputRows float64, bounded bool) float64 {
	if nKeys == 0 {
		return 1
	}
	g := DefaultDistinct
	for i := 1; i < nKeys; i++ {
		g *= 10 // further keys refine the groups, rarely multiply them fully
	}
	if bounded && g > inputRows {
		g = inputRows
	}
	return g
}
