package plan

// SetOpKind is INTERSECT or EXCEPT.
type SetOpKind uint8

// The set operations besides UNION.
const (
	Intersect SetOpKind = iota + 1
	Except
)

// String returns the operation as SQL writes it.
func (k SetOpKind) String() string {
	if k == Except {
		return "EXCEPT"
	}
	return "INTERSECT"
}

// SetOp is INTERSECT or EXCEPT, ALL or DISTINCT, of two inputs with the
// same column types: output column i carries LeftCols[i] of Left and
// RightCols[i] of Right. Rows are compared on all their columns, NULLs
// equal. A row held a times by Left and b times by Right is output
// min(a, b) times by INTERSECT ALL, max(a − b, 0) times by EXCEPT ALL, and
// once by INTERSECT when both are positive or by EXCEPT when only a is.
type SetOp struct {
	Kind      SetOpKind
	All       bool
	Left      Node
	Right     Node
	LeftCols  ColList
	RightCols ColList
	Cols      ColList
	props     *Props
}

var _ Node = (*SetOp)(nil)

func (*SetOp) nodeMarker() {}

// Inputs implements Node.
func (n *SetOp) Inputs() []Node { return []Node{n.Left, n.Right} }

// WithInputs implements Node.
func (n *SetOp) WithInputs(in ...Node) Node {
	checkArity(n, in, 2)
	c := *n
	c.Left, c.Right, c.props = in[0], in[1], nil
	return &c
}

// Output implements Node.
func (n *SetOp) Output() ColList { return n.Cols }

// Props implements Node. INTERSECT over inputs that only insert only
// inserts (a row's multiplicity only grows with both counts); EXCEPT
// retracts a row when the right input inserts it. The DISTINCT forms hold
// each row at most once, so all the columns are a key.
func (n *SetOp) Props() *Props {
	if n.props == nil {
		l, r := n.Left.Props(), n.Right.Props()
		p := &Props{Bounded: l.Bounded && r.Bounded, Watermarked: l.Watermarked && r.Watermarked}
		p.AppendOnly = n.Kind == Intersect && l.AppendOnly && r.AppendOnly
		if !n.All {
			p.Keys = []ColSet{n.Cols.ToSet()}
		}
		n.props = p
	}
	return n.props
}

// Describe implements Node.
func (n *SetOp) Describe(md *Metadata) (string, []Attr) {
	q := "DISTINCT"
	if n.All {
		q = "ALL"
	}
	name := "Intersect"
	if n.Kind == Except {
		name = "Except"
	}
	return name, []Attr{{Value: q}, {Key: "columns", Value: colNames(md, n.Cols)}}
}
