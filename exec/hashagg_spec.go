package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// HashAggConfig configures a HashAgg.
type HashAggConfig struct {
	// Input are the input column types.
	Input []types.T
	// GroupKeys are the input ordinals of the GROUP BY columns; empty for a
	// global aggregate.
	GroupKeys []int
	Aggs      []accum.Spec
	// Names are the output column names: the group columns, then the
	// aggregates.
	Names []string
	// AppendOnly is set when the planner guarantees that the input never
	// retracts; MIN and MAX then keep only the extreme value per group.
	AppendOnly bool
	// Close, when set, makes the aggregate windowed (see AggClose).
	Close *AggClose
}

// schema validates cfg and returns the output schema.
func (cfg *HashAggConfig) schema() (*arrow.Schema, error) {
	if len(cfg.Names) != len(cfg.GroupKeys)+len(cfg.Aggs) {
		return nil, fmt.Errorf("hash aggregate: %d names for %d group keys and %d aggregates",
			len(cfg.Names), len(cfg.GroupKeys), len(cfg.Aggs))
	}
	fields := make([]arrow.Field, 0, len(cfg.Names))
	for i, ord := range cfg.GroupKeys {
		if ord < 0 || ord >= len(cfg.Input) {
			return nil, fmt.Errorf("hash aggregate: group key ordinal %d out of range", ord)
		}
		if _, ok := aggKindOf(cfg.Input[ord]); !ok {
			return nil, fmt.Errorf("hash aggregate: cannot group by a column of type %s: %w", cfg.Input[ord], accum.ErrNotSupported)
		}
		fields = append(fields, types.Field(cfg.Names[i], cfg.Input[ord], true))
	}
	for i, a := range cfg.Aggs {
		fields = append(fields, types.Field(cfg.Names[len(cfg.GroupKeys)+i], a.Type, plan.AggNullable(a.Func)))
	}
	return arrow.NewSchema(fields, nil), nil
}

// newAggState returns the state of aggregate a over an input of nInput
// columns, checking that its result type is the one it computes.
func newAggState(a accum.Spec, appendOnly bool, nInput int) (aggState, error) {
	if a.Func < plan.AggCountStar || a.Func > plan.AggApproxCountDistinct {
		return nil, fmt.Errorf("aggregate function %d: %w", a.Func, accum.ErrNotSupported)
	}
	name := a.Func.String()
	if a.Func == plan.AggCountStar {
		if a.Type.Physical() != types.PhysInt64 {
			return nil, fmt.Errorf("hash aggregate: COUNT(*) must return BIGINT, not %s", a.Type)
		}
		return &countStarAgg{}, nil
	}
	if a.Arg < 0 || a.Arg >= nInput {
		return nil, fmt.Errorf("hash aggregate: %s argument ordinal %d out of range", name, a.Arg)
	}
	if a.Func == plan.AggCount && a.ArgType.Kind == types.Null {
		return &countNullAgg{}, nil // COUNT(NULL): every value is NULL
	}
	argKind, ok := aggKindOf(a.ArgType)
	if !ok {
		return nil, fmt.Errorf("%s over %s: %w", name, a.ArgType, accum.ErrNotSupported)
	}
	var st aggState
	want := a.ArgType // the result type's physical type and scale
	switch a.Func {
	case plan.AggCount:
		st, want = &countAgg{}, types.BigIntT
	case plan.AggApproxCountDistinct:
		if a.Distinct {
			return nil, fmt.Errorf("hash aggregate: APPROX_COUNT_DISTINCT takes no DISTINCT")
		}
		want = types.BigIntT
		if appendOnly {
			st = &approxAgg{kind: argKind}
		} else {
			// A sketch cannot forget a value: over an input that
			// retracts, the count is exact.
			st = newAggDistinct(argKind, &countAgg{})
		}
	case plan.AggSum, plan.AggAvg:
		avg := a.Func == plan.AggAvg
		switch a.ArgType.Physical() {
		case types.PhysInt64:
			st = &intSumAgg{avg: avg}
		case types.PhysFloat64:
			st = &floatSumAgg{avg: avg}
		case types.PhysDecimal:
			st = &decSumAgg{avg: avg, scale: int32(a.ArgType.Scale)}
		default:
			return nil, fmt.Errorf("%s over %s: %w", name, a.ArgType, accum.ErrNotSupported)
		}
		if avg {
			want = types.DoubleT
		}
	case plan.AggMin, plan.AggMax:
		st = newAggMinMax(argKind, a.Func == plan.AggMax, appendOnly)
	}
	if a.Type.Physical() != want.Physical() || (want.Physical() == types.PhysDecimal && a.Type.Scale != want.Scale) {
		return nil, fmt.Errorf("hash aggregate: %s over %s cannot return %s", name, a.ArgType, a.Type)
	}
	if a.Distinct && a.Func != plan.AggMin && a.Func != plan.AggMax {
		st = newAggDistinct(argKind, st)
	}
	return st, nil
}

// newAggMinMax returns the MIN or MAX state for values of kind k.
func newAggMinMax(k aggKind, max, appendOnly bool) aggState {
	var st aggState
	switch {
	case (k == aggInt || k == aggFloat) && appendOnly:
		st = &intExtremeAgg{max: max}
	case k == aggInt || k == aggFloat:
		st = &intMinMaxAgg{max: max}
	case appendOnly:
		st = &strExtremeAgg{max: max}
	default:
		st = &minMaxAgg[string]{max: max, aggMultisets: newAggMultisets[string]()}
	}
	switch k {
	case aggFloat:
		st = &aggKeyedMinMax{aggState: st, keys: aggVec{kind: aggInt}}
	case aggDec:
		st = &aggKeyedMinMax{aggState: st, keys: aggVec{kind: aggStr}}
	}
	return st
}

// newAggDistinct wraps inner in a DISTINCT filter for values of kind k
// (doubles and decimals are told apart by their keys).
func newAggDistinct(k aggKind, inner aggState) aggState {
	if k == aggInt || k == aggFloat {
		return &distinctAgg[int64]{aggMultisets: newAggMultisets[int64](), inner: inner}
	}
	return &distinctAgg[string]{aggMultisets: newAggMultisets[string](), inner: inner}
}

// aggNeedsKeys reports whether aggregate a reads its double or decimal
// argument as order-preserving keys.
func aggNeedsKeys(a accum.Spec) bool {
	switch a.ArgType.Physical() {
	case types.PhysFloat64, types.PhysDecimal:
		return a.Distinct || a.Func == plan.AggMin || a.Func == plan.AggMax || a.Func == plan.AggApproxCountDistinct
	}
	return false
}
