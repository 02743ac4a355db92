package rules

import (
	"math"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// RowNumberToTopN turns a filter on a row number into a Top-N, the
// streaming form of ROW_NUMBER (SQL.md: `rn <= N` is Top-N, `rn = 1`
// de-duplication):
//
//	Filter rn <= 10 AND price > 5 (RowNumber partition=[auction] order=[price DESC] as rn (X))
//	  ⇒  Filter price > 5 (TopN partition=[auction] order=[price DESC] limit=10 row_number=rn (X))
//
// The bounds recognized are rn <= c, rn < c, rn = 1 and their mirror images
// (c >= rn, ...); several combine to the tightest.
//
// Safety: the filter keeps exactly the rows whose number is at most N, which
// is what the Top-N keeps, with the same numbers; under retractions the
// Top-N maintains that set (a row leaving the top N lets the next one in),
// as re-filtering the renumbered input would. The other conjuncts still
// apply, above.
// Profitability: always — numbering every row of a partition on every change
// is not feasible over a stream; a Top-N keeps N rows per partition (append-
// only input) and emits only changes to them.
type RowNumberToTopN struct{}

// Name implements Rule.
func (RowNumberToTopN) Name() string { return "RowNumberToTopN" }

// Apply implements Rule.
func (RowNumberToTopN) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	f, ok := n.(*plan.Filter)
	if !ok {
		return n, false, nil
	}
	rn, ok := f.Input.(*plan.RowNumber)
	if !ok {
		return n, false, nil
	}
	limit := int64(math.MaxInt64)
	var rest []plan.Expr
	for _, cj := range plan.Conjuncts(f.Pred) {
		if l, ok := rankBound(cj, rn.Out); ok {
			limit = min(limit, l)
			continue
		}
		rest = append(rest, cj)
	}
	if limit == math.MaxInt64 {
		return n, false, nil
	}
	top := &plan.TopN{Input: rn.Input, Partition: rn.Partition, Order: rn.Order, Limit: limit, Out: rn.Out}
	if limit < 1 {
		// No row number passes: keep nothing (a Top-1 filtered out).
		top.Limit = 1
		rest = []plan.Expr{&plan.Const{Val: types.BoolDatum(false), Typ: types.BoolT}}
	}
	if len(rest) == 0 {
		return top, true, nil
	}
	return &plan.Filter{Input: top, Pred: plan.MakeAnd(rest)}, true, nil
}

// rankBound reports the largest row number e keeps when e bounds column rn
// from above by a constant.
func rankBound(e plan.Expr, rn plan.ColumnID) (int64, bool) {
	b, ok := e.(*plan.Binary)
	if !ok {
		return 0, false
	}
	op, col, k := b.Op, b.L, b.R
	if _, isRef := b.L.(*plan.Const); isRef {
		op, col, k = b.Op.Commute(), b.R, b.L
	}
	ref, ok := col.(*plan.ColRef)
	if !ok || ref.ID != rn {
		return 0, false
	}
	c, ok := k.(*plan.Const)
	if !ok || c.Val.Null || c.Typ.Physical() != types.PhysInt64 {
		return 0, false
	}
	switch op {
	case plan.OpLe:
		return c.Val.I, true
	case plan.OpLt:
		return c.Val.I - 1, true
	case plan.OpEq:
		if c.Val.I == 1 {
			return 1, true
		}
	}
	return 0, false
}
