package exec

import (
	"errors"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// ErrAggNotSupported is returned for an aggregate an operator cannot
// compute, or over an argument type it does not accept.
var ErrAggNotSupported = errors.New("aggregate not supported")

// AggSpec is one aggregate call an operator computes: COUNT, SUM, AVG,
// MIN, MAX or APPROX_COUNT_DISTINCT, over an input column.
type AggSpec struct {
	Func     plan.AggFunc
	Distinct bool
	// Arg is the input column ordinal of the argument; -1 for COUNT(*).
	Arg     int
	ArgType types.T
	// Type is the result type (plan.AggResultType).
	Type types.T
}

// ErrAggOverflow is returned when an aggregate's value does not fit its
// result type (SUM of BIGINTs beyond 64 bits, of DECIMALs beyond 38 digits).
var ErrAggOverflow = errors.New("aggregate value out of range")
