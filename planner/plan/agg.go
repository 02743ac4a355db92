package plan

import (
	"strconv"
	"strings"

	"github.com/eddysql/eddy/catalog/types"
)

// AggFunc is an aggregate function.
type AggFunc uint8

// The aggregate functions of SQL.md.
const (
	AggCountStar AggFunc = iota + 1 // COUNT(*): rows
	AggCount                        // COUNT(x): non-NULL values
	AggSum
	AggMin
	AggMax
	AggAvg
	AggApproxCountDistinct
)

var aggNames = [...]string{
	AggCountStar: "COUNT", AggCount: "COUNT", AggSum: "SUM", AggMin: "MIN",
	AggMax: "MAX", AggAvg: "AVG", AggApproxCountDistinct: "APPROX_COUNT_DISTINCT",
}

// String returns the function's SQL name.
func (f AggFunc) String() string { return aggNames[f] }

// AggResultType returns the result type of f over an argument of type arg
// (SQL.md: SUM over integers is BIGINT, AVG is DOUBLE, COUNT is BIGINT).
func AggResultType(f AggFunc, arg types.T) types.T {
	switch f {
	case AggCountStar, AggCount, AggApproxCountDistinct:
		return types.BigIntT
	case AggAvg:
		return types.DoubleT
	case AggSum:
		switch arg.Physical() {
		case types.PhysInt64:
			return types.BigIntT
		case types.PhysDecimal:
			return types.DecimalT(types.MaxDecimalPrecision, int(arg.Scale))
		}
		return types.DoubleT
	}
	return arg // MIN, MAX
}

// AggNullable reports whether f's result can be NULL: COUNT never is; the
// others are NULL over a group without non-NULL values.
func AggNullable(f AggFunc) bool {
	switch f {
	case AggCountStar, AggCount, AggApproxCountDistinct:
		return false
	}
	return true
}

// AggCall is one aggregate computed by an Aggregate node.
type AggCall struct {
	Func     AggFunc
	Distinct bool
	// Arg is the argument column (0 for COUNT(*)). The builder projects
	// argument expressions below the aggregate so arguments are columns.
	Arg    ColumnID
	ArgTyp types.T
	// Out is the column the result is written to.
	Out ColumnID
	Typ types.T
	// Text is the call as written, for display (e.g. "COUNT(DISTINCT bidder)").
	Text string
}

// withAggOutputs appends the output column of each of aggs to cols, the
// columns an aggregating node outputs before its aggregates.
func withAggOutputs(cols ColList, aggs []AggCall) ColList {
	for _, a := range aggs {
		cols = append(cols, a.Out)
	}
	return cols
}

// String renders the call.
func (a *AggCall) String() string {
	if a.Text != "" {
		return a.Text
	}
	var b strings.Builder
	b.WriteString(a.Func.String())
	b.WriteByte('(')
	if a.Func == AggCountStar {
		b.WriteByte('*')
	} else {
		if a.Distinct {
			b.WriteString("DISTINCT ")
		}
		b.WriteString("#" + strconv.Itoa(int(a.Arg)))
	}
	b.WriteByte(')')
	return b.String()
}
