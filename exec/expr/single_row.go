package expr

import (
	"github.com/eddysql/eddy/planner/plan"
)

// SingleRowFunc is the internal function the optimizer's decorrelation
// rules call on a scalar subquery's value: single_row(n, v) is v, and an
// error for the query when n, the number of rows the subquery returned for
// the row, is more than one (MySQL's "Subquery returns more than 1 row").
// It is not in plan's registry of built-in functions: users cannot call it.
const SingleRowFunc = plan.SingleRowFunc

// internalFunc returns the kernel builder of a function only rewrites
// write (a function, not a map variable: builders compile their
// arguments, an initialization cycle otherwise).
func internalFunc(name string) (funcBuilder, bool) {
	if name == SingleRowFunc {
		return buildSingleRow, true
	}
	return nil, false
}

// singleRowNode implements single_row.
type singleRowNode struct {
	n, v node
	pos  plan.Pos
}

func buildSingleRow(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 2 || !e.Args[0].Type().IsInteger() {
		return nil, notSupported("%s with these arguments", e.Name)
	}
	n, err := c.compile(e.Args[0])
	if err != nil {
		return nil, err
	}
	v, err := c.compile(e.Args[1])
	if err != nil {
		return nil, err
	}
	return &singleRowNode{n: n, v: v, pos: e.Pos}, nil
}

func (k *singleRowNode) eval(c *evalCtx) (*vector, error) {
	n, err := k.n.eval(c)
	if err != nil {
		return nil, err
	}
	for i := 0; i < c.n; i++ {
		if n.isValid(i) && n.i64[n.row(i)] > 1 {
			return nil, &RowError{Kind: BadArgument, Msg: "subquery returns more than 1 row", Pos: k.pos}
		}
	}
	return k.v.eval(c)
}
