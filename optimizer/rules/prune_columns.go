package rules

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// PruneColumns narrows a node's input to the columns the node uses, all the
// way down to the source, so that connectors decode and operators carry only
// what the query needs:
//
//	Project channel (Filter price > 10 (Scan bid columns=[auction, bidder, price, channel, date_time]))
//	  ⇒  Project channel (Filter price > 10 (Scan bid columns=[price, channel]))
//
// The rule matches a node that consumes named columns (Project, Calc,
// Aggregate, Sort, Union, Intersect, Except) and rebuilds its input without
// the unused ones: a Scan or VALUES drops columns, a Project or Calc drops
// items, an Aggregate drops unused aggregates (never grouping columns), an
// OverAggregate drops unused aggregates (and itself, when none is left), a
// Filter, Sort, Limit or Join passes the request on to its own inputs plus
// the columns it tests itself, and an Intersect or Except drops nothing
// (every column decides which rows are equal).
//
// Safety: a dropped column is read by no operator above, so no value any
// operator computes changes; row counts and ops are untouched (no rows are
// removed, and grouping columns — which decide row identity — stay).
// Profitability: always — less decoding, copying, shuffling and state.
type PruneColumns struct{}

// Name implements Rule.
func (PruneColumns) Name() string { return "PruneColumns" }

// Apply implements Rule.
func (PruneColumns) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	switch n := n.(type) {
	case *plan.Project, *plan.Calc, *plan.Aggregate, *plan.SessionAggregate:
		narrowed, ok := narrow(n.Inputs()[0], plan.ColsRead(n))
		if !ok {
			return n, false, nil
		}
		return n.WithInputs(narrowed), true, nil
	case *plan.Union:
		return pruneUnion(n)
	case *plan.SetOp:
		return pruneSetOp(n)
	}
	return n, false, nil
}

// narrow rebuilds n so that its output keeps only the needed columns (as far
// as n can drop them) and reports whether its output shrank.
func narrow(n plan.Node, needed plan.ColSet) (plan.Node, bool) {
	out := n.Output()
	if out.ToSet().SubsetOf(needed) {
		return n, false
	}
	switch n := n.(type) {
	case *plan.Scan:
		// A table's primary key stays: its upserts are matched by key. The
		// event-time column stays: the source derives watermarks from it.
		// A stream that routes late rows elsewhere keeps every column, so
		// a late row is routed whole.
		pk := map[int]bool{}
		if n.Object.Kind == catalog.Table {
			for _, o := range n.Object.PrimaryKey {
				pk[o] = true
			}
		}
		// A de-duplicated stream's key columns stay: the rows are told
		// apart by them before anything else reads them.
		if d := n.Object.Dedup; d != nil {
			for _, k := range d.Keys {
				pk[n.Object.ColumnIndex(k)] = true
			}
		}
		if wm := n.Object.Watermark; wm != nil {
			pk[n.Object.ColumnIndex(wm.Column)] = true
			if n.Object.Options["late_rows_to"] != "" {
				return n, false
			}
		}
		s := *n
		s.Cols, s.Ords = nil, nil
		for i, col := range n.Cols {
			if needed.Contains(col) || pk[n.Ords[i]] {
				s.Cols = append(s.Cols, col)
				s.Ords = append(s.Ords, n.Ords[i])
			}
		}
		if s.Keep != 0 && !needed.Contains(s.Keep) {
			s.Keep = 0 // no scaled aggregate reads it any more
		}
		if len(s.Cols) == len(n.Cols) && s.Keep == n.Keep {
			return n, false
		}
		return plan.ResetProps(&s), true
	case *plan.Values:
		v := &plan.Values{}
		var keep []int
		for i, col := range n.Cols {
			if needed.Contains(col) {
				v.Cols = append(v.Cols, col)
				keep = append(keep, i)
			}
		}
		for _, r := range n.Rows {
			row := make([]types.Datum, len(keep))
			for j, k := range keep {
				row[j] = r[k]
			}
			v.Rows = append(v.Rows, row)
		}
		return v, true
	case *plan.Project:
		return &plan.Project{Input: n.Input, Items: keepItems(n.Items, needed)}, true
	case *plan.Calc:
		return &plan.Calc{Input: n.Input, Pred: n.Pred, Items: keepItems(n.Items, needed)}, true
	case *plan.Aggregate:
		c := *n
		return dropAggs(n, &c, &c.Aggs, needed)
	case *plan.SessionAggregate:
		c := *n
		return dropAggs(n, &c, &c.Aggs, needed)
	case *plan.TopN:
		in, changed := narrow(n.Input, needed.Union(plan.ColsRead(n)))
		out := n
		if changed {
			out = n.WithInputs(in).(*plan.TopN)
		}
		if n.Out != 0 && !needed.Contains(n.Out) {
			c := *out
			c.Out = 0
			return plan.ResetProps(&c), true
		}
		return out, changed
	case *plan.RowNumber, *plan.Window, *plan.Join, *plan.Filter, *plan.TemporalFilter, *plan.Sort, *plan.Limit:
		// These pass the request on to their inputs, plus the columns
		// they read themselves.
		want := needed.Union(plan.ColsRead(n))
		ins := append([]plan.Node(nil), n.Inputs()...)
		changed := false
		for i, in := range ins {
			var ok bool
			ins[i], ok = narrow(in, want)
			changed = changed || ok
		}
		if !changed {
			return n, false
		}
		return n.WithInputs(ins...), true
	case *plan.OverAggregate:
		return narrowOverAggregate(n, needed)
	case *plan.Union:
		var keep []int
		for i, col := range n.Cols {
			if needed.Contains(col) {
				keep = append(keep, i)
			}
		}
		if len(keep) == len(n.Cols) {
			return n, false
		}
		u := &plan.Union{Ins: n.Ins, InCols: make([]plan.ColList, len(n.Ins))}
		for _, i := range keep {
			u.Cols = append(u.Cols, n.Cols[i])
		}
		for k, ic := range n.InCols {
			for _, i := range keep {
				u.InCols[k] = append(u.InCols[k], ic[i])
			}
		}
		return u, true
	}
	return n, false
}

// pruneUnion narrows each input of a union to the columns the union reads.
func pruneUnion(u *plan.Union) (plan.Node, bool, error) {
	ins := make([]plan.Node, len(u.Ins))
	changed := false
	for k, in := range u.Ins {
		n, ok := narrow(in, u.InCols[k].ToSet())
		ins[k] = n
		changed = changed || ok
	}
	if !changed {
		return u, false, nil
	}
	return u.WithInputs(ins...), true, nil
}

// pruneSetOp narrows each input of an INTERSECT or EXCEPT to the columns
// it compares. Its own columns are never dropped: every column decides
// which rows are equal.
func pruneSetOp(n *plan.SetOp) (plan.Node, bool, error) {
	l, lok := narrow(n.Left, n.LeftCols.ToSet())
	r, rok := narrow(n.Right, n.RightCols.ToSet())
	if !lok && !rok {
		return n, false, nil
	}
	return n.WithInputs(l, r), true, nil
}

// dropAggs drops from *aggs, the aggregates of c (a copy of the
// aggregate n), those not needed, and returns c unless none went.
func dropAggs(n, c plan.Node, aggs *[]plan.AggCall, needed plan.ColSet) (plan.Node, bool) {
	kept := keepAggs(*aggs, needed)
	if len(kept) == len(*aggs) {
		return n, false
	}
	*aggs = kept
	return plan.ResetProps(c), true
}

// keepAggs returns the aggregates whose results are needed.
func keepAggs(aggs []plan.AggCall, needed plan.ColSet) []plan.AggCall {
	return keepNeeded(aggs, needed, func(a plan.AggCall) plan.ColumnID { return a.Out })
}

// keepItems returns the projection items whose results are needed.
func keepItems(items []plan.ProjItem, needed plan.ColSet) []plan.ProjItem {
	return keepNeeded(items, needed, func(it plan.ProjItem) plan.ColumnID { return it.ID })
}

// keepNeeded returns the elements of xs whose output column (out gives
// it) is needed, in order.
func keepNeeded[T any](xs []T, needed plan.ColSet, out func(T) plan.ColumnID) []T {
	var kept []T
	for _, x := range xs {
		if needed.Contains(out(x)) {
			kept = append(kept, x)
		}
	}
	return kept
}

// narrowOverAggregate narrows a window aggregate: it drops the aggregates
// and window functions nobody reads and asks its input for the rest plus its partition, order
// and argument columns. Without aggregates or functions left it passes its input's rows
// through unchanged (one output row per input row; its retractions and
// re-emissions of a row cancel without the aggregates), so it is dropped.
func narrowOverAggregate(n *plan.OverAggregate, needed plan.ColSet) (plan.Node, bool) {
	aggs := keepAggs(n.Aggs, needed)
	var funcs []plan.WinFunc
	for _, f := range n.Funcs {
		if needed.Contains(f.Out) {
			funcs = append(funcs, f)
		}
	}
	if len(aggs) == 0 && len(funcs) == 0 {
		in, _ := narrow(n.Input, needed)
		return in, true
	}
	c := *n
	c.Aggs, c.Funcs = aggs, funcs
	want := needed.Union(plan.ColsRead(&c))
	in, changed := narrow(n.Input, want)
	if !changed && len(aggs) == len(n.Aggs) && len(funcs) == len(n.Funcs) {
		return n, false
	}
	c.Input = in
	return plan.ResetProps(&c), true
}
