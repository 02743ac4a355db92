package physical

import (
	"github.com/eddysql/eddy/catalog/types"
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
	Funcs     []FuncSpec
}

// FuncSpec is one window function of an OverAgg, over input ordinals.
type FuncSpec struct {
	Kind    plan.WinFuncKind
	Arg     int // -1 for the ranking functions
	N       int64
	Default int // -1 for a NULL default
	Type    types.T
	Text    string
}

var _ Node = (*OverAgg)(nil)

// Describe implements Node.
func (n *OverAgg) Describe() (string, []plan.Attr) {
	in := n.Inputs[0].Hdr().Cols
	attrs := partitionAttrs(in, n.Partition)
	if len(n.Order) > 0 {
		attrs = append(attrs, orderAttr(in, n.Order))
	}
	if n.Frame.Kind != plan.FrameNone {
		attrs = append(attrs, plan.Attr{Key: "frame", Value: n.Frame.String()})
	}
	if len(n.Aggs) > 0 {
		attrs = append(attrs, plan.Attr{Key: "aggs", Value: aggsText(n.Aggs, n.Cols[len(in):])})
	}
	if len(n.Funcs) > 0 {
		out := n.Cols[len(in)+len(n.Aggs):]
		attrs = append(attrs, plan.Attr{Key: "funcs", Value: plan.AliasList(len(n.Funcs),
			func(i int) (string, string) { return n.Funcs[i].Text, out[i].Name })})
	}
	return "OverAggregate", attrs
}

// funcSpecs binds window functions to the ordinals of cols.
func funcSpecs(cols plan.ColList, fs []plan.WinFunc) []FuncSpec {
	var out []FuncSpec
	for _, f := range fs {
		spec := FuncSpec{Kind: f.Kind, Arg: -1, N: f.N, Default: -1, Type: f.Typ, Text: f.Text}
		if f.Arg != 0 {
			spec.Arg = cols.Find(f.Arg)
		}
		if f.Default != 0 {
			spec.Default = cols.Find(f.Default)
		}
		out = append(out, spec)
	}
	return out
}

// buildOverAgg builds a window aggregate behind a hash exchange on its
// partition columns (a single-instance gather without them).
//
// Estimates: every row of the input is kept (a retraction anywhere in a
// partition changes its neighbours' frames), so the state is the input's
// integral. A change re-emits (a retraction and an insertion) the rows
// whose frame it enters or leaves: n+m+1 rows for ROWS BETWEEN n PRECEDING
// AND m FOLLOWING (at most a partition's), every row of its partition for
// the whole-partition frame and the frames to the partition's end (a
// stream's changes land near the end, before most rows), and for the
// frames from the partition's start the rows after it in its partition —
// taken as two, since the ORDER BY of a stream is mostly its event time,
// which arrives nearly in order, so changes land near the end.
func (b *builder) buildOverAgg(n *plan.OverAggregate) (Node, error) {
	in, err := b.build(n.Input)
	if err != nil {
		return nil, err
	}
	// The binder rejects DISTINCT in a window aggregate, so no spec is
	// distinct.
	inCols := n.Input.Output()
	o := &OverAgg{Frame: n.Frame, Partition: ordsOf(inCols, n.Partition), Order: sortKeysOf(inCols, n.Order),
		Aggs: aggSpecs(inCols, n.Aggs), Funcs: funcSpecs(inCols, n.Funcs)}
	in, p := b.partitioned(in, o.Partition)
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
		width := max(0, n.Frame.Preceding) + max(0, n.Frame.Following)
		perChange = min(float64(width)+1, max(1, rows/parts))
	case plan.FramePartition, plan.FrameRowsToEnd, plan.FramePeersToEnd:
		perChange = max(1, rows/parts)
	default:
		perChange = 2
	}
	for _, f := range n.Funcs {
		switch f.Kind {
		case plan.WinPercentRank, plan.WinCumeDist, plan.WinNtile:
			perChange = max(perChange, rows/parts) // every row of the partition
		case plan.WinLag, plan.WinLead:
			perChange = max(perChange, min(float64(f.N)+1, max(1, rows/parts)))
		}
	}
	o.Est = Estimate{RowsPerSec: in.Hdr().Est.RowsPerSec * 2 * perChange, Stateful: true, StateRows: rows,
		StateBytes: rows * cost.RowWidth(in.Hdr().Types()), StateBounded: inProps.Bounded || inProps.RowsExpire, Growth: "with every input row"}
	return o, nil
}
