package plan

// WindowKind is the kind of a window table function.
type WindowKind uint8

// The window kinds of SQL.md.
const (
	Tumble WindowKind = iota + 1
	Hop
	Cumulate
	Session
)

// String returns the function name.
func (k WindowKind) String() string {
	return [...]string{"", "TUMBLE", "HOP", "CUMULATE", "SESSION"}[k]
}

// Window assigns each input row to its TUMBLE, HOP or CUMULATE windows: the
// output is the input's columns plus window_start and window_end, one row
// per window a row belongs to. (SESSION windows depend on other rows; they
// are computed by SessionAggregate.)
type Window struct {
	Input      Node
	Kind       WindowKind
	TimeCol    ColumnID
	Size       int64 // ms: TUMBLE and HOP size, CUMULATE maximum size
	Slide      int64 // ms: HOP slide, CUMULATE step
	Start, End ColumnID
	props      *Props
}

// SessionAggregate groups each key's rows into sessions — runs of rows less
// than Gap apart in event time — and aggregates each session. Its output is
// the Keys, window_start (Start), window_end (End), then the aggregates.
type SessionAggregate struct {
	Input      Node
	Keys       ColList
	TimeCol    ColumnID
	Gap        int64 // ms
	Start, End ColumnID
	Aggs       []AggCall
	// EmitOnClose emits each session once, when it closes (EMIT ON WINDOW
	// CLOSE): the output only appends.
	EmitOnClose bool
	props       *Props
}

var (
	_ Node = (*Window)(nil)
	_ Node = (*SessionAggregate)(nil)
)

func (*Window) nodeMarker()           {}
func (*SessionAggregate) nodeMarker() {}

// Inputs implements Node.
func (n *Window) Inputs() []Node { return []Node{n.Input} }

// Inputs implements Node.
func (n *SessionAggregate) Inputs() []Node { return []Node{n.Input} }

// WithInputs implements Node.
func (n *Window) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// WithInputs implements Node.
func (n *SessionAggregate) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}

// Output implements Node.
func (n *Window) Output() ColList {
	return append(append(ColList(nil), n.Input.Output()...), n.Start, n.End)
}

// Output implements Node.
func (n *SessionAggregate) Output() ColList {
	return withAggOutputs(append(append(ColList(nil), n.Keys...), n.Start, n.End), n.Aggs)
}

// Props implements Node: a window assignment is linear, so it keeps its
// input's properties.
func (n *Window) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, AppendOnly: in.AppendOnly, Watermarked: in.Watermarked}
		for _, c := range in.TimeCols.Ordered() {
			n.props.addTime(c, 0)
		}
		for c, lag := range in.TimeLags {
			n.props.addTime(c, lag)
		}
		if lag, ok := in.TimeLag(n.TimeCol); ok {
			// A row's windows end after its time, so window_end follows
			// the watermark as its time does; they start less than a
			// (largest) size before it, so window_start follows it a
			// size further behind. Windows over another column end
			// whenever that column says, watermark or not.
			n.props.addTime(n.End, lag)
			n.props.addTime(n.Start, lag+n.Size)
		}
	}
	return n.props
}

// Props implements Node: sessions grow and merge, so the running result
// updates its rows; a session is identified by its key and start.
func (n *SessionAggregate) Props() *Props {
	if n.props == nil {
		key := append(append(ColList(nil), n.Keys...), n.Start)
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Keys: []ColSet{key.ToSet()}, Watermarked: in.Watermarked, AppendOnly: n.EmitOnClose}
	}
	return n.props
}

// Describe implements Node.
func (n *Window) Describe(md *Metadata) (string, []Attr) {
	return "Window", append([]Attr{{Value: n.Kind.String()}, {Key: "time", Value: md.Column(n.TimeCol).Name}}, WindowSizes(n.Kind, n.Size, n.Slide)...)
}

// Describe implements Node.
func (n *SessionAggregate) Describe(md *Metadata) (string, []Attr) {
	var attrs []Attr
	if len(n.Keys) > 0 {
		attrs = append(attrs, Attr{"group", colNames(md, n.Keys)})
	}
	attrs = append(attrs, Attr{"time", md.Column(n.TimeCol).Name}, Attr{"gap", IntervalText(n.Gap)})
	attrs = append(attrs, Attr{"aggs", aggsText(md, n.Aggs)})
	if n.EmitOnClose {
		attrs = append(attrs, Attr{"emit", "on-window-close"})
	}
	return "SessionAggregate", attrs
}
