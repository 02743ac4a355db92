package plan

import "strconv"

// Union concatenates its inputs (UNION ALL): output column i carries each
// input's column InCols[k][i]. Rows keep their ops.
type Union struct {
	Ins    []Node
	InCols []ColList
	Cols   ColList
	props  *Props
}

// RowNumber numbers the rows of each partition in Order (ROW_NUMBER() OVER
// (PARTITION BY .. ORDER BY ..)) into column Out. Over a stream it is only
// meaningful as the input of a rank filter, which turns it into a TopN.
type RowNumber struct {
	Input     Node
	Partition ColList
	Order     []SortKey
	Out       ColumnID
	props     *Props
}

// TopN keeps, per partition, the Limit first rows in Order (ties broken by
// the other columns); with RowNumber set it also outputs their row number
// in column Out. `rn = 1` makes it a de-duplication.
type TopN struct {
	Input     Node
	Partition ColList
	Order     []SortKey
	Limit     int64
	Out       ColumnID // the row number column, 0 when not output
	props     *Props
}

var (
	_ Node = (*Union)(nil)
	_ Node = (*RowNumber)(nil)
	_ Node = (*TopN)(nil)
)

func (*Union) nodeMarker()     {}
func (*RowNumber) nodeMarker() {}
func (*TopN) nodeMarker()      {}

// Inputs implements Node.
func (n *Union) Inputs() []Node { return n.Ins }

// Inputs implements Node.
func (n *RowNumber) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *TopN) Inputs() []Node { return []Node{n.Input} }

// WithInputs implements Node.
func (n *Union) WithInputs(in ...Node) Node {
	checkArity(n, in, len(n.Ins))
	return &Union{Ins: append([]Node(nil), in...), InCols: n.InCols, Cols: n.Cols}
}

// WithInputs implements Node.
func (n *RowNumber) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// WithInputs implements Node.
func (n *TopN) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// Output implements Node.
func (n *Union) Output() ColList { return n.Cols }

// Output implements Node.
func (n *RowNumber) Output() ColList { return append(append(ColList(nil), n.Input.Output()...), n.Out) }

// Output implements Node.
func (n *TopN) Output() ColList {
	out := append(ColList(nil), n.Input.Output()...)
	if n.Out != 0 {
		out = append(out, n.Out)
	}
	return out
}

// Props implements Node.
func (n *Union) Props() *Props {
	if n.props == nil {
		p := &Props{Bounded: true, AppendOnly: true, Watermarked: true}
		for _, in := range n.Ins {
			ip := in.Props()
			p.Bounded = p.Bounded && ip.Bounded
			p.AppendOnly = p.AppendOnly && ip.AppendOnly
			p.Watermarked = p.Watermarked && ip.Watermarked
		}
		n.props = p
	}
	return n.props
}

// Props implements Node: numbering updates rows as others arrive.
func (n *RowNumber) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Watermarked: in.Watermarked}
	}
	return n.props
}

// Props implements Node: rows leave the top N as better ones arrive.
func (n *TopN) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Watermarked: in.Watermarked}
		if n.Out != 0 {
			n.props.Keys = []ColSet{n.Partition.ToSet().Union(MakeColSet(n.Out))}
		}
	}
	return n.props
}

// Describe implements Node.
func (n *Union) Describe(md *Metadata) (string, []Attr) {
	return "Union", []Attr{{Value: "ALL"}, {Key: "inputs", Value: strconv.Itoa(len(n.Ins))}, {Key: "columns", Value: colNames(md, n.Cols)}}
}

// Describe implements Node.
func (n *RowNumber) Describe(md *Metadata) (string, []Attr) {
	return "RowNumber", append(partitionOrder(md, n.Partition, n.Order), Attr{"as", md.Column(n.Out).Name})
}

// Describe implements Node.
func (n *TopN) Describe(md *Metadata) (string, []Attr) {
	attrs := append(partitionOrder(md, n.Partition, n.Order), Attr{"limit", strconv.FormatInt(n.Limit, 10)})
	if n.Out != 0 {
		attrs = append(attrs, Attr{"row_number", md.Column(n.Out).Name})
	}
	return "TopN", attrs
}
