// Package accum holds what eddy's aggregate families share: the
// specification of an aggregate call and the errors of aggregation.
package accum

import (
	"errors"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// ErrNotSupported is returned for an aggregate an operator cannot
// compute, or over an argument type it does not accept.
var ErrNotSupported = errors.New("aggregate not supported")

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
}

// ErrOverflow is returned when an aggregate's value does not fit its
// result type (SUM of BIGINTs beyond 64 bits, of DECIMALs beyond 38 digits).
var ErrOverflow = errors.New("aggregate value out of range")
