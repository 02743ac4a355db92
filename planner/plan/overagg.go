package plan

import "strconv"

// FrameKind is the shape of a window aggregate's frame: which rows of a
// row's partition, in the window's order, its aggregate covers.
type FrameKind uint8

// The frames eddy runs. Every one ends at the current row (or, for
// FramePartition, at the partition's end); ROWS frames count rows, ties in
// the ORDER BY broken by the remaining columns.
const (
	// FrameRows is ROWS BETWEEN n PRECEDING AND CURRENT ROW: the row and
	// the n rows before it.
	FrameRows FrameKind = iota + 1
	// FrameRowsUnbounded is ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT
	// ROW: the row and every row before it.
	FrameRowsUnbounded
	// FramePeers is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, the
	// SQL default with ORDER BY and no frame clause: every row before the
	// row and every row equal to it in the ORDER BY (its peers).
	FramePeers
	// FramePartition is the whole partition: the default without ORDER BY,
	// and ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING.
	FramePartition
)

// FrameNone is the frame of an OverAggregate that computes only window
// functions that ignore frames (ranking and offset functions).
const FrameNone FrameKind = 0

// Frame is a window aggregate's frame.
type Frame struct {
	Kind FrameKind
	// Preceding is n of FrameRows (0 for a frame of the current row alone).
	Preceding int64
}

// String renders the frame as SQL writes it.
func (f Frame) String() string {
	switch f.Kind {
	case FrameRows:
		return "ROWS " + strconv.FormatInt(f.Preceding, 10) + " PRECEDING"
	case FrameRowsUnbounded:
		return "ROWS UNBOUNDED PRECEDING"
	case FramePeers:
		return "RANGE UNBOUNDED PRECEDING"
	case FramePartition:
		return "WHOLE PARTITION"
	case FrameNone:
		return "NONE"
	}
	return "?"
}

// OverAggregate computes aggregates over windows of rows (AGG(x) OVER
// (PARTITION BY .. ORDER BY .. frame)) and window functions (Funcs): each
// input row is output with the
// aggregates Aggs over its Frame, the rows of its partition in Order that
// the frame covers. Its output is the input's columns followed by the
// aggregates' Out columns. Every call of one OverAggregate shares the
// partition, order and frame; calls with different windows stack as
// separate nodes.
type OverAggregate struct {
	Input     Node
	Partition ColList
	Order     []SortKey
	Frame     Frame
	Aggs      []AggCall
	// Funcs are the window functions other than aggregates; their outputs
	// follow the aggregates'.
	Funcs []WinFunc
	props *Props
}

var _ Node = (*OverAggregate)(nil)

func (*OverAggregate) nodeMarker() {}

// Inputs implements Node.
func (n *OverAggregate) Inputs() []Node { return []Node{n.Input} }

// WithInputs implements Node.
func (n *OverAggregate) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// Output implements Node.
func (n *OverAggregate) Output() ColList {
	return withFuncOutputs(withAggOutputs(append(ColList(nil), n.Input.Output()...), n.Aggs), n.Funcs)
}

// Props implements Node. Each input row is one output row, so the input's
// keys still identify rows. A row's aggregates change as other rows of its
// partition arrive or leave, so the output retracts even over an
// append-only input, and re-emits old rows: no column follows the
// watermark.
func (n *OverAggregate) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Keys: in.Keys, Watermarked: in.Watermarked}
	}
	return n.props
}

// Describe implements Node.
func (n *OverAggregate) Describe(md *Metadata) (string, []Attr) {
	var attrs []Attr
	switch {
	case len(n.Order) > 0:
		attrs = partitionOrder(md, n.Partition, n.Order)
	case len(n.Partition) > 0:
		attrs = []Attr{{"partition", colNames(md, n.Partition)}}
	}
	if n.Frame.Kind != FrameNone {
		attrs = append(attrs, Attr{"frame", n.Frame.String()})
	}
	if len(n.Aggs) > 0 {
		attrs = append(attrs, Attr{"aggs", aggsText(md, n.Aggs)})
	}
	if len(n.Funcs) > 0 {
		attrs = append(attrs, Attr{"funcs", funcsText(md, n.Funcs)})
	}
	return "OverAggregate", attrs
}
