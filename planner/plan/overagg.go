package plan

import (
	"strconv"
	"strings"
)

// FrameKind is the shape of a window aggregate's frame: which rows of a
// row's partition, in the window's order, its aggregate covers.
type FrameKind uint8

// The frames eddy runs. ROWS frames count rows, ties in the ORDER BY
// broken by the remaining columns; their offsets are signed, so that a
// frame may start or end before or after the current row.
const (
	// FrameRows is ROWS BETWEEN .. AND .. with bounded ends: the rows from
	// Preceding rows before the current row to Following rows after it (a
	// negative Preceding starts after the current row, a negative
	// Following ends before it). ROWS n PRECEDING is Preceding n,
	// Following 0.
	FrameRows FrameKind = iota + 1
	// FrameRowsUnbounded is ROWS BETWEEN UNBOUNDED PRECEDING AND ..: every
	// row up to Following rows after the current row.
	FrameRowsUnbounded
	// FramePeers is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, the
	// SQL default with ORDER BY and no frame clause: every row before the
	// row and every row equal to it in the ORDER BY (its peers).
	FramePeers
	// FramePartition is the whole partition: the default without ORDER BY,
	// and ROWS (or RANGE) BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED
	// FOLLOWING.
	FramePartition
	// FrameRowsToEnd is ROWS BETWEEN .. AND UNBOUNDED FOLLOWING: the rows
	// from Preceding rows before the current row to the partition's end.
	FrameRowsToEnd
	// FramePeersToEnd is RANGE BETWEEN CURRENT ROW AND UNBOUNDED
	// FOLLOWING: the row's first peer and every row after it.
	FramePeersToEnd
)

// FrameNone is the frame of an OverAggregate that computes only window
// functions that ignore frames (ranking and offset functions).
const FrameNone FrameKind = 0

// Frame is a window aggregate's frame.
type Frame struct {
	Kind FrameKind
	// Preceding is the rows before the current row a ROWS frame starts at
	// (FrameRows, FrameRowsToEnd; negative: after it).
	Preceding int64
	// Following is the rows after the current row a ROWS frame ends at
	// (FrameRows, FrameRowsUnbounded; negative: before it).
	Following int64
	// Groups makes a ROWS frame (FrameRows, FrameRowsUnbounded,
	// FrameRowsToEnd) a GROUPS frame: its offsets count peer groups (rows
	// equal in the ORDER BY) from the current row's, not rows.
	Groups bool
	// Range makes a ROWS frame (FrameRows, FrameRowsUnbounded,
	// FrameRowsToEnd) a RANGE frame with offsets: the rows whose value of
	// the one ORDER BY column lies within the offsets of the current
	// row's. The offsets are of the column's values (milliseconds for a
	// TIMESTAMP, days for a DATE), PrecedingF and FollowingF for a DOUBLE.
	Range                  bool
	PrecedingF, FollowingF float64
	// Unit names the offsets' unit for display: "" for numbers, "ms" or
	// "DAY" for intervals.
	Unit string
}

// rowsBound renders a ROWS frame's bound at offset n after the current
// row.
func rowsBound(n int64) string {
	switch {
	case n < 0:
		return strconv.FormatInt(-n, 10) + " PRECEDING"
	case n > 0:
		return strconv.FormatInt(n, 10) + " FOLLOWING"
	}
	return "CURRENT ROW"
}

// String renders the frame as SQL writes it.
func (f Frame) String() string {
	if f.Range {
		bound := func(n int64, x float64, dir string) string {
			if n == 0 && x == 0 {
				return "CURRENT ROW"
			}
			v := strconv.FormatInt(n, 10)
			if n == 0 && x != 0 {
				v = strconv.FormatFloat(x, 'g', -1, 64)
			}
			switch f.Unit {
			case "ms":
				v = "INTERVAL " + v + "ms"
			case "DAY":
				v = "INTERVAL " + v + " DAY"
			}
			return v + " " + dir
		}
		lo, hi := "UNBOUNDED PRECEDING", "UNBOUNDED FOLLOWING"
		if f.Kind != FrameRowsUnbounded {
			lo = bound(f.Preceding, f.PrecedingF, "PRECEDING")
			if f.Preceding < 0 || f.PrecedingF < 0 {
				lo = bound(-f.Preceding, -f.PrecedingF, "FOLLOWING")
			}
		}
		if f.Kind != FrameRowsToEnd {
			hi = bound(f.Following, f.FollowingF, "FOLLOWING")
			if f.Following < 0 || f.FollowingF < 0 {
				hi = bound(-f.Following, -f.FollowingF, "PRECEDING")
			}
		}
		return "RANGE BETWEEN " + lo + " AND " + hi
	}
	if f.Groups {
		g := f
		g.Groups = false
		s := g.String()
		if !strings.HasPrefix(s, "ROWS BETWEEN") {
			// The short forms: n PRECEDING, UNBOUNDED PRECEDING.
			s = "ROWS BETWEEN " + strings.TrimPrefix(s, "ROWS ") + " AND CURRENT ROW"
		}
		return "GROUPS" + strings.TrimPrefix(s, "ROWS")
	}
	switch f.Kind {
	case FrameRows:
		if f.Following == 0 && f.Preceding >= 0 {
			return "ROWS " + strconv.FormatInt(f.Preceding, 10) + " PRECEDING"
		}
		return "ROWS BETWEEN " + rowsBound(-f.Preceding) + " AND " + rowsBound(f.Following)
	case FrameRowsUnbounded:
		if f.Following == 0 {
			return "ROWS UNBOUNDED PRECEDING"
		}
		return "ROWS BETWEEN UNBOUNDED PRECEDING AND " + rowsBound(f.Following)
	case FrameRowsToEnd:
		return "ROWS BETWEEN " + rowsBound(-f.Preceding) + " AND UNBOUNDED FOLLOWING"
	case FramePeers:
		return "RANGE UNBOUNDED PRECEDING"
	case FramePeersToEnd:
		return "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"
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
