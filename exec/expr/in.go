package expr

import (
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// linearMax is the list length up to which IN scans its constants; longer
// lists are sorted and binary-searched (a scan of a few values beats the
// search's unpredictable branches).
const linearMax = 8

// buildIn compiles x [NOT] IN (list). A list of constants becomes a set
// probe; otherwise the test is rewritten as x = e1 OR x = e2 ..., which has
// the same three-valued semantics.
func (c *compiler) buildIn(e *plan.In) (node, error) {
	// A list of constants becomes a set, computed now. A constant that
	// fails to compute (CAST('x' AS INT)) must fail only the rows that
	// reach it, as an element of the chain of equalities does.
	allConst := true
	for _, x := range e.List {
		if !isConstant(x) {
			allConst = false
			break
		}
		if _, err := EvalConst(x); err != nil {
			if !IsRowError(err) {
				return nil, err
			}
			allConst = false
			break
		}
	}
	if !allConst {
		var or plan.Expr
		eqs := make([]plan.Expr, len(e.List))
		for i, x := range e.List {
			eqs[i] = &plan.Binary{Op: plan.OpEq, L: e.Arg, R: x, Typ: types.BoolT}
		}
		or = eqs[0]
		if len(eqs) > 1 {
			or = &plan.Or{Args: eqs}
		}
		if e.Negated {
			or = &plan.Not{Arg: or}
		}
		return c.build(or)
	}
	arg, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	t := e.Arg.Type()
	s := &inSet{negated: e.Negated}
	for _, x := range e.List {
		d, err := EvalConst(x)
		if err != nil {
			return nil, err
		}
		if d.Null {
			s.hasNull = true
			continue
		}
		switch t.Physical() {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration, types.PhysDate32, types.PhysBool:
			s.ints = append(s.ints, d.I)
		case types.PhysFloat64:
			if d.F == d.F { // NaN equals nothing, so it is never found: leave it out
				s.floats = append(s.floats, d.F)
			}
		case types.PhysDecimal:
			s.decs = append(s.decs, d.D)
		case types.PhysString:
			s.strs = append(s.strs, d.S)
		}
	}
	slices.Sort(s.ints)
	slices.Sort(s.floats)
	slices.Sort(s.strs)
	slices.SortFunc(s.decs, func(a, b decimal128.Num) int { return a.Cmp(b) })
	p := t.Physical()
	return newFn(func(in []*vector, n int, out *result) error {
		s.probe(p, in[0], n, out)
		return nil
	}, true, arg), nil
}

// inSet is the sorted set of an IN list's non-NULL constants.
type inSet struct {
	ints    []int64
	floats  []float64
	decs    []decimal128.Num
	strs    []string
	hasNull bool
	negated bool
}

// contains reports whether x is in the sorted set xs.
func contains[T cmp.Ordered](xs []T, x T) bool {
	if len(xs) <= linearMax {
		for _, y := range xs {
			if x == y {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(xs, x)
	return ok
}

// probe sets out to the membership of v's rows.
func (s *inSet) probe(p types.Physical, v *vector, n int, out *result) {
	r := out.bools(n)
	for i := range r {
		var found bool
		switch p {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
			found = contains(s.ints, v.int64At(i))
		case types.PhysDate32:
			found = contains(s.ints, int64(v.int32At(i)))
		case types.PhysBool:
			found = contains(s.ints, int64(b2i(v.boolAt(i))))
		case types.PhysFloat64:
			// NaN must not be found: a binary search, which orders by
			// cmp.Compare, would find it equal to itself.
			x := v.float64At(i)
			found = x == x && contains(s.floats, x)
		case types.PhysString:
			found = contains(s.strs, v.str(i))
		case types.PhysDecimal:
			x := v.decAt(i)
			_, found = slices.BinarySearchFunc(s.decs, x, func(a, b decimal128.Num) int { return a.Cmp(b) })
		}
		r[i] = found != s.negated
		if !found && s.hasNull {
			out.setNull(i, n) // x IN (.., NULL) is NULL when nothing matches
		}
	}
}
