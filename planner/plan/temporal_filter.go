package plan

// TemporalFilter keeps the rows whose time column Col is later than the
// processing time NOW() plus Offset (Offset is negative for `NOW() -
// INTERVAL ...`): `Col > NOW() + Offset`, or `>=` when Inclusive. As NOW()
// advances, a row it kept stops qualifying and is retracted; a row that
// arrives already expired is dropped. It is the one place a continuous
// query may call NOW() (RisingWave's and Materialize's temporal filters),
// and it bounds the state of what is above it: every row it emits is
// retracted once NOW() passes Col - Offset (Props.RowsExpire).
//
// With Delay it bounds Col from above instead — `Col < NOW() + Offset`,
// or `<=` when Inclusive — and holds each row until NOW() reaches it,
// then passes it (a row already due passes at once; nothing is ever
// retracted by the clock).
type TemporalFilter struct {
	Input     Node
	Col       ColumnID
	Inclusive bool
	Delay     bool
	Offset    int64 // milliseconds added to NOW()
	// NowUnit is the milliseconds NOW() is cut to (1000 for NOW(0)).
	NowUnit int64
	// Cond is the condition as the query wrote it, for EXPLAIN.
	Cond  Expr
	props *Props
}

var _ Node = (*TemporalFilter)(nil)

func (*TemporalFilter) nodeMarker() {}

// Inputs implements Node.
func (n *TemporalFilter) Inputs() []Node { return []Node{n.Input} }

// WithInputs implements Node.
func (n *TemporalFilter) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// Output implements Node.
func (n *TemporalFilter) Output() ColList { return n.Input.Output() }

// Props implements Node: the filter retracts the rows that expire, so it
// never only appends, and everything it emits expires. It has no time
// columns: it retracts a row when processing time passes it, however far
// the watermark has passed the row's time.
func (n *TemporalFilter) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Keys: in.Keys, Watermarked: in.Watermarked, RowsExpire: true}
		if n.Delay {
			// It passes rows later than they came, after the watermark that
			// followed them: what is above it has no event time to trust.
			n.props = &Props{Bounded: in.Bounded, Keys: in.Keys, AppendOnly: in.AppendOnly}
		}
	}
	return n.props
}

// Describe implements Node.
func (n *TemporalFilter) Describe(md *Metadata) (string, []Attr) {
	if n.Delay {
		at := md.Column(n.Col).Name
		switch {
		case n.Offset > 0:
			at += " - " + IntervalText(n.Offset)
		case n.Offset < 0:
			at += " + " + IntervalText(-n.Offset)
		}
		return "TemporalFilter", []Attr{{"", n.Cond.String()}, {"state", "the rows whose time has not come: a row passes when NOW() reaches " + at}}
	}
	return "TemporalFilter", []Attr{{"", n.Cond.String()}, {"state", "bounded: a row leaves at " + md.Column(n.Col).Name + " + " + IntervalText(-n.Offset)}}
}
