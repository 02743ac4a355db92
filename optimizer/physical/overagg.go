package physical

import (
	"strings"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// OverAgg computes aggregates over windows of rows (AGG(x) OVER (PARTITION
// BY .. ORDER BY .. frame)): each input row is output with Aggs over its
// Frame, the rows of its partition in Order (ties broken by the remaining
// columns) that the frame covers. Its output is the input's columns
// followed by the aggregates. Rows are partitioned by Partition, so a hash
// exchange on it feeds the instances; without partition columns one
// instance holds every row.
type OverAgg struct {
	Header
	Partition []int
	Order     []SortKey
	Frame     plan.Frame
	Aggs      []AggSpec
}

var _ Node = (*OverAgg)(nil)

// Describe implements Node.
func (n *OverAgg) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	var attrs []plan.Attr
	if len(n.Partition) > 0 {
		names := make([]string, len(n.Partition))
		for i, p := range n.Partition {
			names[i] = in[p].Name
		}
		attrs = append(attrs, plan.Attr{Key: "partition", Value: "[" + strings.Join(names, ", ") + "]"})
	}
	if len(n.Order) > 0 {
		keys := make([]string, len(n.Order))
		for i, k := range n.Order {
			keys[i] = in[k.Ord].Name
			if k.Desc {
				keys[i] += " DESC"
			}
		}
		attrs = append(attrs, plan.Attr{Key: "order", Value: "[" + strings.Join(keys, ", ") + "]"})
	}
	attrs = append(attrs, plan.Attr{Key: "frame", Value: n.Frame.String()})
	aggs := make([]string, len(n.Aggs))
	for i, a := range n.Aggs {
		aggs[i] = a.Text
		if name := n.Cols[len(in)+i].Name; name != a.Text {
			aggs[i] += " AS " + name
		}
	}
	return "OverAggregate", append(attrs, plan.Attr{Key: "aggs", Value: "[" + strings.Join(aggs, ", ") + "]"})
}

// buildOverAgg builds a window aggregate behind a hash exchange on its
// partition columns (a single-instance gather without them).
//
// Estimates: every row of the input is kept (a retraction anywhere in a
// partition changes its neighbours' frames), so the state is the input's
// integral. A change re-emits (a retraction and an insertion) the rows
// whose frame it enters or leaves: n+1 rows for ROWS n PRECEDING (at most
// a partition's), every row of its partition for the whole-partition
// frame, and for the unbounded frames the rows after it in its partition —
// taken as two, since the ORDER BY of a stream is mostly its event time,
// which arrives nearly in order, so changes land near the end.
func (b *builder) buildOverAgg(n *plan.OverAggregate) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	inCols := n.Input.Output()
	o := &OverAgg{Frame: n.Frame}
	for _, c := range n.Partition {
		o.Partition = append(o.Partition, inCols.Find(c))
	}
	for _, k := range n.Order {
		o.Order = append(o.Order, SortKey{Ord: inCols.Find(k.Col), Desc: k.Desc})
	}
	for _, a := range n.Aggs {
		spec := AggSpec{Func: a.Func, Arg: -1, ArgType: a.ArgTyp, Type: a.Typ, Text: a.String()}
		if a.Arg != 0 {
			spec.Arg = inCols.Find(a.Arg)
		}
		o.Aggs = append(o.Aggs, spec)
	}
	p := b.opts.Parallelism
	if len(o.Partition) == 0 {
		p = 1
		in = b.exchange(in, Single, nil, 1)
	} else {
		in = b.exchange(in, Hash, o.Partition, p)
	}
	o.Header = b.header(n.Output(), p, in)
	inProps := n.Input.Props()
	parts := cost.GroupCount(len(o.Partition), cost.DefaultSnapshotRows, inProps.Bounded)
	rows := parts * cost.DefaultDistinct
	if inProps.Bounded {
		rows = min(rows, cost.DefaultSnapshotRows)
	}
	var perChange float64
	switch n.Frame.Kind {
	case plan.FrameRows:
		perChange = min(float64(n.Frame.Preceding)+1, max(1, rows/parts))
	case plan.FramePartition:
		perChange = max(1, rows/parts)
	default:
		perChange = 2
	}
	o.Est = Estimate{RowsPerSec: in.Hdr().Est.RowsPerSec * 2 * perChange, Stateful: true, StateRows: rows,
		StateBytes: rows * cost.RowWidth(in.Hdr().Types()), StateBounded: inProps.Bounded, Growth: "with every input row"}
	return o, nil
}
