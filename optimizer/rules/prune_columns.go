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
// Aggregate, Sort) and rebuilds its input without the unused ones: a Scan
// or VALUES drops columns, a Project or Calc drops items, an Aggregate drops
// unused aggregates (never grouping columns), an OverAggregate drops unused
// aggregates (and itself, when none is left), and a Filter, Sort, Limit or
// Join passes the request on to its own inputs plus the columns it tests
// itself.
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
	var needed plan.ColSet
	switch n := n.(type) {
	case *plan.Project:
		needed = plan.ItemCols(n.Items)
	case *plan.Calc:
		needed = plan.ItemCols(n.Items, n.Pred)
	case *plan.Aggregate:
		needed = n.Group.ToSet()
		for _, a := range n.Aggs {
			if a.Arg != 0 {
				needed.Add(a.Arg)
			}
		}
	case *plan.Union:
		return pruneUnion(n)
	case *plan.SessionAggregate:
		needed = n.Keys.ToSet()
		needed.Add(n.TimeCol)
		for _, a := range n.Aggs {
			if a.Arg != 0 {
				needed.Add(a.Arg)
			}
		}
	default:
		return n, false, nil
	}
	in := n.Inputs()[0]
	narrowed, ok := narrow(in, needed)
	if !ok {
		return n, false, nil
	}
	return n.WithInputs(narrowed), true, nil
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
		if len(s.Cols) == len(n.Cols) {
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
		var aggs []plan.AggCall
		for _, a := range n.Aggs {
			if needed.Contains(a.Out) {
				aggs = append(aggs, a)
			}
		}
		if len(aggs) == len(n.Aggs) {
			return n, false
		}
		c := *n
		c.Aggs = aggs
		return plan.ResetProps(&c), true
	case *plan.SessionAggregate:
		var aggs []plan.AggCall
		for _, a := range n.Aggs {
			if needed.Contains(a.Out) {
				aggs = append(aggs, a)
			}
		}
		if len(aggs) == len(n.Aggs) {
			return n, false
		}
		c := *n
		c.Aggs = aggs
		return plan.ResetProps(&c), true
	case *plan.TopN:
		want := needed.Union(n.Partition.ToSet())
		for _, k := range n.Order {
			want.Add(k.Col)
		}
		in, changed := narrow(n.Input, want)
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
	case *plan.RowNumber:
		want := needed.Union(n.Partition.ToSet())
		for _, k := range n.Order {
			want.Add(k.Col)
		}
		in, ok := narrow(n.Input, want)
		if !ok {
			return n, false
		}
		return n.WithInputs(in), true
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
	case *plan.Window:
		want := needed.Union(plan.MakeColSet(n.TimeCol))
		in, ok := narrow(n.Input, want)
		if !ok {
			return n, false
		}
		return n.WithInputs(in), true
	case *plan.Join:
		want := needed
		if n.On != nil {
			want = want.Union(plan.ColsUsed(n.On))
		}
		l, lok := narrow(n.Left, want)
		r, rok := narrow(n.Right, want)
		if !lok && !rok {
			return n, false
		}
		return n.WithInputs(l, r), true
	case *plan.Filter:
		in, ok := narrow(n.Input, needed.Union(plan.ColsUsed(n.Pred)))
		if !ok {
			return n, false
		}
		return &plan.Filter{Input: in, Pred: n.Pred}, true
	case *plan.Sort:
		want := needed.Union(plan.ColSet{})
		for _, k := range n.Keys {
			want.Add(k.Col)
		}
		in, ok := narrow(n.Input, want)
		if !ok {
			return n, false
		}
		return &plan.Sort{Input: in, Keys: n.Keys}, true
	case *plan.Limit:
		in, ok := narrow(n.Input, needed)
		if !ok {
			return n, false
		}
		return &plan.Limit{Input: in, Count: n.Count, Offset: n.Offset}, true
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

func keepItems(items []plan.ProjItem, needed plan.ColSet) []plan.ProjItem {
	var out []plan.ProjItem
	for _, it := range items {
		if needed.Contains(it.ID) {
			out = append(out, it)
		}
	}
	return out
}

// narrowOverAggregate narrows a window aggregate: it drops the aggregates
// nobody reads and asks its input for the rest plus its partition, order
// and argument columns. Without aggregates left it passes its input's rows
// through unchanged (one output row per input row; its retractions and
// re-emissions of a row cancel without the aggregates), so it is dropped.
func narrowOverAggregate(n *plan.OverAggregate, needed plan.ColSet) (plan.Node, bool) {
	var aggs []plan.AggCall
	for _, a := range n.Aggs {
		if needed.Contains(a.Out) {
			aggs = append(aggs, a)
		}
	}
	if len(aggs) == 0 {
		in, _ := narrow(n.Input, needed)
		return in, true
	}
	c := *n
	c.Aggs = aggs
	want := needed.Union(plan.ColsRead(&c))
	in, changed := narrow(n.Input, want)
	if !changed && len(aggs) == len(n.Aggs) {
		return n, false
	}
	c.Input = in
	return plan.ResetProps(&c), true
}
