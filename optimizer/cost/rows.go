package cost

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/planner/plan"
)

// Horizon is how long a regular join or an unbounded aggregate is assumed
// to accumulate a stream's rows when the cost model sizes its state: an
// hour of the stream's rate.
const Horizon = 3600.0

// Size estimates the rows a plan node's result holds — what a join's state
// keeps of it: a bounded input's rows, a table's rows, an hour of a
// stream, narrowed by filters and joins.
func (e *Estimator) Size(n plan.Node) float64 {
	if e == nil {
		return e.size(n)
	}
	if s, ok := e.sizes[n]; ok {
		return s
	}
	s := e.size(n)
	if e.sizes == nil {
		e.sizes = map[plan.Node]float64{}
	}
	e.sizes[n] = s
	return s
}

func (e *Estimator) size(n plan.Node) float64 {
	switch x := n.(type) {
	case *plan.Scan:
		switch {
		case x.Object.Kind == catalog.Table:
			return e.Rows(x.Object)
		case x.Bounded || x.Mode == plan.ScanSnapshot:
			return e.SourceRate(x.Object, true)
		}
		return e.SourceRate(x.Object, false) * Horizon
	case *plan.Values:
		return float64(len(x.Rows))
	case *plan.Filter:
		return e.Size(x.Input) * e.Selectivity(x.Pred)
	case *plan.Calc:
		return e.Size(x.Input) * e.Selectivity(x.Pred)
	case *plan.Aggregate:
		in := e.Size(x.Input)
		g := 1.0
		for _, c := range x.Group {
			g *= e.Distinct(c)
		}
		return min(g, in)
	case *plan.Join:
		l, r := e.Size(x.Left), e.Size(x.Right)
		switch x.Kind {
		case plan.SemiJoin, plan.AntiJoin:
			return l * 0.5
		}
		s := l * r * e.JoinSelectivity(x.On)
		switch x.Kind {
		case plan.LeftJoin:
			s = max(s, l)
		case plan.RightJoin:
			s = max(s, r)
		case plan.FullJoin:
			s = max(s, l+r)
		}
		return s
	case *plan.Union:
		s := 0.0
		for _, in := range x.Ins {
			s += e.Size(in)
		}
		return s
	case *plan.SetOp:
		// At most the left input's rows; half of them, as a semi or anti
		// join keeps.
		return e.Size(x.Left) * 0.5
	case *plan.Limit:
		return min(float64(x.Count), e.Size(x.Input))
	}
	if in := n.Inputs(); len(in) == 1 {
		return e.Size(in[0])
	}
	return DefaultSnapshotRows
}

// JoinSelectivity estimates the fraction of pairs a join condition keeps:
// an equality of two columns keeps 1 / max(their distinct counts) (each
// value of the column with fewer values meets its equals), other conjuncts
// as Selectivity.
func (e *Estimator) JoinSelectivity(on plan.Expr) float64 {
	if on == nil {
		return 1
	}
	s := 1.0
	for _, c := range plan.Conjuncts(on) {
		if b, ok := c.(*plan.Binary); ok && b.Op == plan.OpEq {
			l, lok := b.L.(*plan.ColRef)
			r, rok := b.R.(*plan.ColRef)
			if lok && rok {
				s /= max(e.Distinct(l.ID), e.Distinct(r.ID))
				continue
			}
			if lok || rok {
				s /= DefaultDistinct // an expression of the other side
				continue
			}
		}
		s *= e.Selectivity(c)
	}
	return s
}
