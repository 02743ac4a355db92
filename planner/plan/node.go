package plan

import (
	"fmt"
)

// Node is a logical relational operator. Nodes are immutable; rewrites build
// new ones with WithInputs.
type Node interface {
	// Inputs returns the node's inputs.
	Inputs() []Node
	// WithInputs returns a copy with the inputs replaced; it panics on a
	// wrong arity (a broken invariant).
	WithInputs(in ...Node) Node
	// Output is the ordered list of columns the node produces.
	Output() ColList
	// Props returns the node's derived streaming properties.
	Props() *Props
	// Describe returns the node's operator name and its attributes, in a
	// fixed order, for the one-line text form.
	Describe(md *Metadata) (op string, attrs []Attr)
	nodeMarker()
}

// Attr is one key=value attribute of a node's text form; an empty Key prints
// the value alone.
type Attr struct {
	Key, Value string
}

// Props are a node's streaming properties, derived from its inputs.
type Props struct {
	// Bounded: the node's input ends (a file, a snapshot, VALUES).
	Bounded bool
	// AppendOnly: the node never emits retractions (-D, -U).
	AppendOnly bool
	// Keys are column sets that uniquely identify a row of the node's
	// current result (e.g. an aggregate's GROUP BY columns).
	Keys []ColSet
	// Watermarked: the node's input carries watermarks (a stream declared
	// with WATERMARK feeds it), so windows close and their state is freed.
	Watermarked bool
	// TimeCols are columns that follow the watermark: every change that
	// arrives after watermark W — an insertion and a retraction alike —
	// has a value of at least W (or NULL). They are the event-time column
	// a WATERMARK is declared on, a window's window_end, and a windowed
	// aggregate's window_end, whose rows change only until the watermark
	// closes their window. Interval and window joins free their state by
	// them: a row whose time the watermark passed can no longer be matched
	// by a later change, nor be retracted by one.
	TimeCols ColSet
	// TimeLags are columns that follow the watermark some milliseconds
	// behind: every change that arrives after watermark W has a value of
	// at least W - lag (or NULL). A window's window_start follows its time
	// column a window size behind, and an aggregate grouped by a column
	// that follows the watermark keeps the promise, as each change of its
	// result is made by a change of its input in the same group. Interval
	// and window joins free their state by them as by TimeCols, lag
	// later. A column is in TimeCols or in TimeLags, not both; the map is
	// never changed once the props are made.
	TimeLags map[ColumnID]int64
	// RowsExpire: every row the node emits is retracted once processing
	// time passes a bound the row's own values set (a TemporalFilter's
	// output), so the state of what reads it holds only rows that have not
	// expired yet and is bounded.
	RowsExpire bool
}

func checkArity(n Node, in []Node, want int) {
	if len(in) != want {
		panic(fmt.Sprintf("plan: %T.WithInputs: got %d inputs, want %d", n, len(in), want))
	}
}

// Walk visits n and its descendants in pre-order.
func WalkNodes(n Node, fn func(Node)) {
	fn(n)
	for _, in := range n.Inputs() {
		WalkNodes(in, fn)
	}
}

// TimeLag reports whether column c follows the watermark and how far
// behind it: 0 for a time column (TimeCols), its lag for one of TimeLags.
func (p *Props) TimeLag(c ColumnID) (int64, bool) {
	if p.TimeCols.Contains(c) {
		return 0, true
	}
	lag, ok := p.TimeLags[c]
	return lag, ok
}

// addTime records, on props being made, that column c follows the
// watermark lag behind; a lag of at most 0 makes it a time column (a value
// of at least W + x is one of at least W). Recorded twice, c keeps the
// smaller lag: both promises hold.
func (p *Props) addTime(c ColumnID, lag int64) {
	if lag <= 0 {
		p.TimeCols.Add(c)
		delete(p.TimeLags, c)
		return
	}
	if p.TimeCols.Contains(c) {
		return
	}
	if old, ok := p.TimeLags[c]; ok && old <= lag {
		return
	}
	if p.TimeLags == nil {
		p.TimeLags = map[ColumnID]int64{}
	}
	p.TimeLags[c] = lag
}
