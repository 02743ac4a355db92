package plan

import (
	"github.com/eddysql/eddy/catalog"
	"github.com/eddysql/eddy/catalog/types"
)

// ScanMode says how a Scan reads its object.
type ScanMode uint8

// The scan modes.
const (
	// ScanContinuous reads the object from its beginning and follows it:
	// the input of continuous queries.
	ScanContinuous ScanMode = iota
	// ScanSnapshot reads what the object holds now and ends: the input of
	// pull queries.
	ScanSnapshot
)

// Scan reads a catalog object: a stream's or table's rows, or a view's changes.
type Scan struct {
	Object *catalog.Object
	Alias  string
	// Cols are the output columns; Ords the object's column ordinals they read.
	Cols ColList
	Ords []int
	Mode ScanMode
	// Bounded is set when the object's input ends (a file without follow).
	Bounded bool
	// Keep, when not 0, is a last, hidden output column: the probability
	// that the query's load shedding kept each row, which its source
	// fills in (1 when it sheds none). SCALED_COUNT and SCALED_SUM read it
	// (planner/scaled.go).
	Keep  ColumnID
	props *Props
}

// Values produces constant rows (a SELECT without FROM).
type Values struct {
	Rows  [][]types.Datum
	Cols  ColList
	props *Props
}

// Filter keeps the rows for which Pred is TRUE.
type Filter struct {
	Input Node
	Pred  Expr
	props *Props
}

// ProjItem is one output column of a Project or Calc.
type ProjItem struct {
	ID   ColumnID
	Expr Expr
}

// Project computes new columns from each input row.
type Project struct {
	Input Node
	Items []ProjItem
	props *Props
}

// Calc is a Filter and a Project fused into one operator: rows where Pred is
// TRUE (or all rows, when Pred is nil) are projected to Items.
type Calc struct {
	Input Node
	Pred  Expr
	Items []ProjItem
	props *Props
}

// Aggregate groups its input by Group and computes Aggs per group; its
// output is the group columns followed by the aggregates' Out columns.
type Aggregate struct {
	Input Node
	Group ColList
	Aggs  []AggCall
	// WindowClose is the grouping column that tells when a group's window
	// closes, when the aggregate groups by TUMBLE/HOP/CUMULATE windows (0
	// otherwise): window_end, or window_start with WindowCloseOffset = the
	// window size. Once the watermark reaches WindowClose + offset the
	// window is final, so its state can be freed (or, emitting on window
	// close, its rows emitted).
	WindowClose       ColumnID
	WindowCloseOffset int64
	// EmitOnClose emits each window's rows once, when it closes (EMIT ON
	// WINDOW CLOSE), instead of running results: the output only appends.
	EmitOnClose bool
	props       *Props
}

// SortKey is one ORDER BY key.
type SortKey struct {
	Col  ColumnID
	Desc bool
}

// Sort orders a bounded input (pull queries only).
type Sort struct {
	Input Node
	Keys  []SortKey
	props *Props
}

// Limit keeps Count rows after skipping Offset (pull queries only).
type Limit struct {
	Input  Node
	Count  int64
	Offset int64
	props  *Props
}

var (
	_ Node = (*Scan)(nil)
	_ Node = (*Values)(nil)
	_ Node = (*Filter)(nil)
	_ Node = (*Project)(nil)
	_ Node = (*Calc)(nil)
	_ Node = (*Aggregate)(nil)
	_ Node = (*Sort)(nil)
	_ Node = (*Limit)(nil)
)

func (*Scan) nodeMarker()      {}
func (*Values) nodeMarker()    {}
func (*Filter) nodeMarker()    {}
func (*Project) nodeMarker()   {}
func (*Calc) nodeMarker()      {}
func (*Aggregate) nodeMarker() {}
func (*Sort) nodeMarker()      {}
func (*Limit) nodeMarker()     {}

// Inputs implementations.

func (n *Scan) Inputs() []Node      { return nil }
func (n *Values) Inputs() []Node    { return nil }
func (n *Filter) Inputs() []Node    { return []Node{n.Input} }
func (n *Project) Inputs() []Node   { return []Node{n.Input} }
func (n *Calc) Inputs() []Node      { return []Node{n.Input} }
func (n *Aggregate) Inputs() []Node { return []Node{n.Input} }
func (n *Sort) Inputs() []Node      { return []Node{n.Input} }
func (n *Limit) Inputs() []Node     { return []Node{n.Input} }

// WithInputs implementations.

func (n *Scan) WithInputs(in ...Node) Node   { checkArity(n, in, 0); return n }
func (n *Values) WithInputs(in ...Node) Node { checkArity(n, in, 0); return n }
func (n *Filter) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	return &Filter{Input: in[0], Pred: n.Pred}
}
func (n *Project) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	return &Project{Input: in[0], Items: n.Items}
}
func (n *Calc) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	return &Calc{Input: in[0], Pred: n.Pred, Items: n.Items}
}
func (n *Aggregate) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	c := *n
	c.Input, c.props = in[0], nil
	return &c
}
func (n *Sort) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	return &Sort{Input: in[0], Keys: n.Keys}
}
func (n *Limit) WithInputs(in ...Node) Node {
	checkArity(n, in, 1)
	return &Limit{Input: in[0], Count: n.Count, Offset: n.Offset}
}

// Output implementations.

func (n *Scan) Output() ColList {
	if n.Keep != 0 {
		return append(n.Cols[:len(n.Cols):len(n.Cols)], n.Keep)
	}
	return n.Cols
}
func (n *Values) Output() ColList { return n.Cols }
func (n *Filter) Output() ColList { return n.Input.Output() }
func (n *Project) Output() ColList {
	out := make(ColList, len(n.Items))
	for i, it := range n.Items {
		out[i] = it.ID
	}
	return out
}
func (n *Calc) Output() ColList {
	out := make(ColList, len(n.Items))
	for i, it := range n.Items {
		out[i] = it.ID
	}
	return out
}
func (n *Aggregate) Output() ColList {
	return withAggOutputs(append(ColList(nil), n.Group...), n.Aggs)
}
func (n *Sort) Output() ColList  { return n.Input.Output() }
func (n *Limit) Output() ColList { return n.Input.Output() }

// Props implementations.

func (n *Scan) Props() *Props {
	if n.props == nil {
		// A stream only appends; a snapshot of a view is read as inserts. A
		// table's log holds upserts, which become updates even in a snapshot.
		appendOnly := n.Object.Kind == catalog.Stream || (n.Object.Kind == catalog.View && n.Mode == ScanSnapshot)
		n.props = &Props{Bounded: n.Bounded || n.Mode == ScanSnapshot, AppendOnly: appendOnly,
			Watermarked: n.Object.Watermark != nil && n.Object.Kind != catalog.View}
		if (n.Object.Kind == catalog.Table || n.Object.Kind == catalog.View) && len(n.Object.PrimaryKey) > 0 {
			// A table holds one row per primary key, and a view one per
			// the key its query's result has.
			var key ColSet
			for _, pk := range n.Object.PrimaryKey {
				for i, o := range n.Ords {
					if o == pk {
						key.Add(n.Cols[i])
					}
				}
			}
			if key.Len() == len(n.Object.PrimaryKey) {
				n.props.Keys = []ColSet{key}
			}
		}
		if n.props.Watermarked && n.Mode != ScanSnapshot {
			wm := n.Object.ColumnIndex(n.Object.Watermark.Column)
			for i, o := range n.Ords {
				if o == wm {
					n.props.TimeCols = MakeColSet(n.Cols[i])
				}
			}
		}
	}
	return n.props
}
func (n *Values) Props() *Props {
	if n.props == nil {
		n.props = &Props{Bounded: true, AppendOnly: true}
	}
	return n.props
}
func (n *Filter) Props() *Props {
	if n.props == nil {
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, AppendOnly: in.AppendOnly, Keys: in.Keys, Watermarked: in.Watermarked,
			TimeCols: in.TimeCols, TimeLags: in.TimeLags, RowsExpire: in.RowsExpire}
	}
	return n.props
}
func (n *Project) Props() *Props {
	if n.props == nil {
		n.props = projectProps(n.Input.Props(), n.Items)
	}
	return n.props
}
func (n *Calc) Props() *Props {
	if n.props == nil {
		n.props = projectProps(n.Input.Props(), n.Items)
	}
	return n.props
}
func (n *Aggregate) Props() *Props {
	if n.props == nil {
		// An aggregate updates its rows as input arrives, so it retracts
		// even over an append-only input.
		in := n.Input.Props()
		n.props = &Props{Bounded: in.Bounded, Keys: []ColSet{n.Group.ToSet()}, Watermarked: in.Watermarked,
			AppendOnly: n.EmitOnClose && n.WindowClose != 0 && in.AppendOnly}
		if n.ClosesWindows() {
			// A window's row changes only until the watermark reaches its
			// window_end (a change of a closed window is late and
			// dropped), so every change after watermark W is of a window
			// ending after W: grouped by window_end, a time column;
			// grouped by window_start (closing at window_start + the
			// size), one that follows the watermark a size behind.
			n.props.addTime(n.WindowClose, n.WindowCloseOffset)
		}
		for _, c := range n.Group {
			// Each change of a group's row is made by a change of the
			// input in that group, which the input's promise bounds.
			if lag, ok := in.TimeLag(c); ok {
				n.props.addTime(c, lag)
			}
		}
	}
	return n.props
}

// ClosesWindows reports whether the aggregate closes its windows as the
// watermark passes them: it groups by a window (WindowClose), its input
// carries watermarks, and it emits each window once, on close, or its
// input only appends (exec/build makes such an aggregate windowed: it
// frees a closed window's group and drops the changes that would reopen
// it as late).
func (n *Aggregate) ClosesWindows() bool {
	in := n.Input.Props()
	return n.WindowClose != 0 && in.Watermarked && (n.EmitOnClose || in.AppendOnly)
}

// Sort and Limit integrate their bounded input and emit the result as
// inserts, in order.
func (n *Sort) Props() *Props {
	if n.props == nil {
		n.props = &Props{Bounded: true, AppendOnly: true, Keys: n.Input.Props().Keys}
	}
	return n.props
}
func (n *Limit) Props() *Props {
	if n.props == nil {
		n.props = &Props{Bounded: true, AppendOnly: true}
	}
	return n.props
}

// projectProps keeps the input's keys that survive the projection as
// pass-through columns, and its time columns passed through or renamed
// (`window_end AS date_time`: the same values under a new ID).
func projectProps(in *Props, items []ProjItem) *Props {
	out := &Props{Bounded: in.Bounded, AppendOnly: in.AppendOnly, Watermarked: in.Watermarked, RowsExpire: in.RowsExpire}
	var passed ColSet
	for _, it := range items {
		c, ok := it.Expr.(*ColRef)
		if !ok {
			continue
		}
		if c.ID == it.ID {
			passed.Add(c.ID)
		}
		if lag, ok := in.TimeLag(c.ID); ok {
			out.addTime(it.ID, lag)
		}
	}
	for _, k := range in.Keys {
		if k.SubsetOf(passed) {
			out.Keys = append(out.Keys, k)
		}
	}
	return out
}

// ResetProps clears a copied node's cached properties so they are derived
// again for its new contents.
func ResetProps(n Node) Node {
	switch n := n.(type) {
	case *Join:
		n.props = nil
	case *Scan:
		n.props = nil
	case *Values:
		n.props = nil
	case *Filter:
		n.props = nil
	case *Project:
		n.props = nil
	case *Calc:
		n.props = nil
	case *Aggregate:
		n.props = nil
	case *Sort:
		n.props = nil
	case *Limit:
		n.props = nil
	case *Window:
		n.props = nil
	case *SessionAggregate:
		n.props = nil
	case *Union:
		n.props = nil
	case *SetOp:
		n.props = nil
	case *RowNumber:
		n.props = nil
	case *TopN:
		n.props = nil
	case *OverAggregate:
		n.props = nil
	case *TemporalFilter:
		n.props = nil
	}
	return n
}
