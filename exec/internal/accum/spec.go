package accum

import (
	"errors"
	"fmt"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// ErrNotSupported is returned for an aggregate an operator cannot
// compute, or over an argument type it does not accept.
var ErrNotSupported = errors.New("aggregate not supported")

// ErrOverflow is returned when an aggregate's value does not fit its
// result type (SUM of BIGINTs beyond 64 bits, of DECIMALs beyond 38 digits).
var ErrOverflow = errors.New("aggregate value out of range")

// Spec is one aggregate call an operator computes: COUNT, SUM, AVG,
// MIN, MAX or APPROX_COUNT_DISTINCT, over an input column.
type Spec struct {
	Func     plan.AggFunc
	Distinct bool
	// Arg is the input column ordinal of the argument; -1 for COUNT(*).
	Arg     int
	ArgType types.T
	// Type is the result type (plan.AggResultType).
	Type types.T
	// Share, when not 0, names DISTINCT aggregates (COUNT, SUM or AVG)
	// of an operator that keep their values in one set per group, because
	// their arguments hold mostly the same values (see sharedDistinct). It
	// changes no result, only the cost.
	Share int
}

// Features are what an operator computes beyond COUNT, SUM, AVG, MIN and
// MAX of plain arguments.
type Features struct {
	Distinct bool // DISTINCT arguments (MIN and MAX ignore DISTINCT)
	Approx   bool // APPROX_COUNT_DISTINCT
}

// All is every feature: what the hash aggregate computes.
var All = Features{Distinct: true, Approx: true}

// Check checks that a is an aggregate that an operator with features f
// computes over an input of nInput columns: the function, the argument's
// ordinal and type (COUNT takes any, SUM and AVG numbers, MIN, MAX and
// APPROX_COUNT_DISTINCT whatever has a Kind), and the result type, which
// must be plan.AggResultType's (by physical type, and scale for a
// decimal). What eddy does not compute wraps ErrNotSupported.
func (a Spec) Check(nInput int, f Features) error {
	if a.Func < plan.AggCountStar || a.Func > plan.AggApproxCountDistinct {
		return fmt.Errorf("aggregate function %d: %w", a.Func, ErrNotSupported)
	}
	name := a.Func.String()
	switch {
	case a.Func == plan.AggApproxCountDistinct && !f.Approx:
		return fmt.Errorf("%s: %w", name, ErrNotSupported)
	case a.Func == plan.AggApproxCountDistinct && a.Distinct:
		return fmt.Errorf("%s takes no DISTINCT", name)
	case a.Distinct && !f.Distinct && a.Func != plan.AggMin && a.Func != plan.AggMax:
		return fmt.Errorf("%s(DISTINCT): %w", name, ErrNotSupported)
	}
	if a.Func == plan.AggCountStar {
		if a.Type.Physical() != types.PhysInt64 {
			return fmt.Errorf("COUNT(*) must return BIGINT, not %s", a.Type)
		}
		return nil
	}
	if a.Arg < 0 || a.Arg >= nInput {
		return fmt.Errorf("%s argument ordinal %d out of range", name, a.Arg)
	}
	nullCount := a.Func == plan.AggCount && a.ArgType.Kind == types.Null
	if _, ok := KindOf(a.ArgType); !ok && !nullCount {
		return fmt.Errorf("%s over %s: %w", name, a.ArgType, ErrNotSupported)
	}
	if a.Func == plan.AggSum || a.Func == plan.AggAvg {
		switch a.ArgType.Physical() {
		case types.PhysInt64, types.PhysFloat64, types.PhysDecimal:
		default:
			return fmt.Errorf("%s over %s: %w", name, a.ArgType, ErrNotSupported)
		}
	}
	want := plan.AggResultType(a.Func, a.ArgType)
	if a.Type.Physical() != want.Physical() || (want.Physical() == types.PhysDecimal && a.Type.Scale != want.Scale) {
		return fmt.Errorf("%s over %s cannot return %s", name, a.ArgType, a.Type)
	}
	return nil
}
