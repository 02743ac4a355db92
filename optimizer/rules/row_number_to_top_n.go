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
// (c >= rn, ...); several combine to the tightest. A filter with a conjunct
// folded to FALSE or NULL keeps no row whatever the bound, and becomes a
// Top-1 under that filter. The filter may sit above projections that
// forward the row number (possibly renamed) and other filters, as the
// select list and WHERE of a derived table over the ROW_NUMBER put it:
//
//	Filter t.rn <= 3 (Project [id, rn AS t.rn] (RowNumber as rn (X)))
//	  ⇒  Project [id, rn AS t.rn] (TopN limit=3 row_number=rn (X))
//
// Without a rank filter a continuous RowNumber runs as a window function
// (an OverAggregate, which keeps every row and renumbers the rows after a
// change); the rule must still not depend on an optional rule to bring the
// filter down, or a Top-N would become that.
//
// Safety: the filter keeps exactly the rows whose number is at most N, which
// is what the Top-N keeps, with the same numbers; under retractions the
// Top-N maintains that set (a row leaving the top N lets the next one in),
// as re-filtering the renumbered input would. The other conjuncts still
// apply, above. A bound tests only the row number, which the projections
// between forward unchanged, so applying it right above the RowNumber
// keeps the same rows: a projection maps each row on its own, and filters
// commute (the filters between stay above the Top-N). A filter that keeps
// no row keeps none above a Top-1 either.
// Profitability: always — numbering every row keeps every row of a
// partition and renumbers the rows after each change; a Top-N keeps N rows
// per partition (append-only input) and emits only changes to them.
type RowNumberToTopN struct{}

// Name implements Rule.
func (RowNumberToTopN) Name() string { return "RowNumberToTopN" }

// Apply implements Rule.
func (RowNumberToTopN) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	return match(c, n, rowNumberToTopN)
}

func rowNumberToTopN(_ *Context, f *plan.Filter) (plan.Node, bool, error) {
	// The projections and filters between f and the RowNumber, top first.
	var between []plan.Node
	in := f.Input
	var rn *plan.RowNumber
	for rn == nil {
		switch x := in.(type) {
		case *plan.RowNumber:
			rn = x
		case *plan.Project, *plan.Filter:
			between = append(between, x)
			in = x.Inputs()[0]
		default:
			return f, false, nil
		}
	}
	// The columns of f's input that carry the row number.
	var names plan.ColSet
	names.Add(rn.Out)
	for i := len(between) - 1; i >= 0; i-- {
		p, ok := between[i].(*plan.Project)
		if !ok {
			continue
		}
		var out plan.ColSet
		for _, it := range p.Items {
			if r, ok := it.Expr.(*plan.ColRef); ok && names.Contains(r.ID) {
				out.Add(it.ID)
			}
		}
		names = out
	}
	limit := int64(math.MaxInt64)
	var rest []plan.Expr
	for _, cj := range plan.Conjuncts(f.Pred) {
		if l, ok := rankBound(cj, names); ok {
			limit = min(limit, l)
			continue
		}
		rest = append(rest, cj)
	}
	empty := keepsNoRow(f.Pred)
	if limit == math.MaxInt64 && !empty {
		return f, false, nil
	}
	top := &plan.TopN{Input: rn.Input, Partition: rn.Partition, Order: rn.Order, Limit: limit, Out: rn.Out}
	if limit < 1 || empty {
		// No row passes: keep nothing (a Top-1 filtered out).
		top.Limit = 1
		rest = []plan.Expr{&plan.Const{Val: types.BoolDatum(false), Typ: types.BoolT}}
	}
	var out plan.Node = top
	for i := len(between) - 1; i >= 0; i-- {
		out = between[i].WithInputs(out)
	}
	if len(rest) == 0 {
		return out, true, nil
	}
	return &plan.Filter{Input: out, Pred: plan.MakeAnd(rest)}, true, nil
}

// rankBound reports the largest row number e keeps when e bounds one of the
// columns rn (the row number under its names) from above by a constant.
func rankBound(e plan.Expr, rn plan.ColSet) (int64, bool) {
	b, ok := e.(*plan.Binary)
	if !ok {
		return 0, false
	}
	op, col, k := b.Op, b.L, b.R
	if _, isRef := b.L.(*plan.Const); isRef {
		op, col, k = b.Op.Commute(), b.R, b.L
	}
	ref, ok := col.(*plan.ColRef)
	if !ok || !rn.Contains(ref.ID) {
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
