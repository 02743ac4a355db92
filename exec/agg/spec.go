package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/planner/plan"
)

// HashConfig configures a HashAgg.
type HashConfig struct {
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
	// Close, when set, makes the aggregate windowed (see WindowClose).
	Close *WindowClose
}

// schema validates cfg and returns the output schema.
func (cfg *HashConfig) schema() (*arrow.Schema, error) {
	if len(cfg.Names) != len(cfg.GroupKeys)+len(cfg.Aggs) {
		return nil, fmt.Errorf("hash aggregate: %d names for %d group keys and %d aggregates",
			len(cfg.Names), len(cfg.GroupKeys), len(cfg.Aggs))
	}
	fields := make([]arrow.Field, 0, len(cfg.Names))
	for i, ord := range cfg.GroupKeys {
		if ord < 0 || ord >= len(cfg.Input) {
			return nil, fmt.Errorf("hash aggregate: group key ordinal %d out of range", ord)
		}
		if _, ok := kindOf(cfg.Input[ord]); !ok {
			return nil, fmt.Errorf("hash aggregate: cannot group by a column of type %s: %w", cfg.Input[ord], accum.ErrNotSupported)
		}
		fields = append(fields, types.Field(cfg.Names[i], cfg.Input[ord], true))
	}
	for i, a := range cfg.Aggs {
		fields = append(fields, types.Field(cfg.Names[len(cfg.GroupKeys)+i], a.Type, plan.AggNullable(a.Func)))
	}
	return arrow.NewSchema(fields, nil), nil
}

// newState returns the state of aggregate a over an input of nInput
// columns, checking that its result type is the one it computes.
func newState(a accum.Spec, appendOnly bool, nInput int) (state, error) {
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
	argKind, ok := kindOf(a.ArgType)
	if !ok {
		return nil, fmt.Errorf("%s over %s: %w", name, a.ArgType, accum.ErrNotSupported)
	}
	var st state
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
			st = newDistinct(argKind, &countAgg{})
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
		st = newMinMax(argKind, a.Func == plan.AggMax, appendOnly)
	}
	if a.Type.Physical() != want.Physical() || (want.Physical() == types.PhysDecimal && a.Type.Scale != want.Scale) {
		return nil, fmt.Errorf("hash aggregate: %s over %s cannot return %s", name, a.ArgType, a.Type)
	}
	if a.Distinct && a.Func != plan.AggMin && a.Func != plan.AggMax {
		st = newDistinct(argKind, st)
	}
	return st, nil
}

// newMinMax returns the MIN or MAX state for values of kind k.
func newMinMax(k kind, max, appendOnly bool) state {
	var st state
	switch {
	case (k == kindInt || k == kindFloat) && appendOnly:
		st = &intExtremeAgg{max: max}
	case k == kindInt || k == kindFloat:
		st = &intMinMaxAgg{max: max}
	case appendOnly:
		st = &strExtremeAgg{max: max}
	default:
		st = &minMaxAgg[string]{max: max, multisets: newMultisets[string]()}
	}
	switch k {
	case kindFloat:
		st = &keyedMinMax{state: st, keys: vector{kind: kindInt}}
	case kindDec:
		st = &keyedMinMax{state: st, keys: vector{kind: kindStr}}
	}
	return st
}

// newDistinct wraps inner in a DISTINCT filter for values of kind k
// (doubles and decimals are told apart by their keys).
func newDistinct(k kind, inner state) state {
	if k == kindInt || k == kindFloat {
		return &distinctAgg[int64]{multisets: newMultisets[int64](), inner: inner}
	}
	return &distinctAgg[string]{multisets: newMultisets[string](), inner: inner}
}

// needsKeys reports whether aggregate a reads its double or decimal
// argument as order-preserving keys.
func needsKeys(a accum.Spec) bool {
	switch a.ArgType.Physical() {
	case types.PhysFloat64, types.PhysDecimal:
		return a.Distinct || a.Func == plan.AggMin || a.Func == plan.AggMax || a.Func == plan.AggApproxCountDistinct
	}
	return false
}
