package plan

import "github.com/eddysql/eddy/catalog"

// JoinKind is the kind of a join.
type JoinKind uint8

// The join kinds. Semi and Anti output the left side's columns only: the
// left rows with at least one match (Semi) or none (Anti), from IN, EXISTS
// and NOT EXISTS subqueries.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
)

// String returns the kind as SQL writes it.
func (k JoinKind) String() string {
	return [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti"}[k]
}

// PreservesLeft reports whether every left row appears in the output
// (padded with NULLs when unmatched).
func (k JoinKind) PreservesLeft() bool { return k == LeftJoin || k == FullJoin }

// PreservesRight reports whether every right row appears in the output.
func (k JoinKind) PreservesRight() bool { return k == RightJoin || k == FullJoin }

// Join combines the rows of Left and Right for which On is TRUE (a nil On
// is a cross join). Its output is Left's columns then Right's, or Left's
// only for a semi or anti join. The columns of a side an outer join pads
// with NULLs are nullable in the metadata.
type Join struct {
	Kind        JoinKind
	Left, Right Node
	On          Expr
	// Lookup makes a continuous join of a stream (Left) with a table
	// (Right) a lookup join (SQL.md): each stream row joins the table's
	// rows current when it arrives, and table changes emit nothing.
	Lookup bool
	props  *Props
	out    joinOutput
}

// joinOutput caches a join's output columns, with the inputs and kind
// they were computed for: a tree of joins asks its inputs for their
// outputs at every level, which without the cache costs the square of its
// depth. The planner may still swap a join's sides while building it
// (makeLookup), so the cache checks that they are the ones it saw.
type joinOutput struct {
	cols        ColList
	set         ColSet // cols as a set, once OutputSet asked for it
	hasSet      bool
	left, right Node
	kind        JoinKind
}

var _ Node = (*Join)(nil)

func (*Join) nodeMarker() {}

// Inputs implements Node.
func (n *Join) Inputs() []Node { return []Node{n.Left, n.Right} }

// WithInputs implements Node.
func (n *Join) WithInputs(in ...Node) Node {
	checkArity(n, in, 2)
	return &Join{Kind: n.Kind, Left: in[0], Right: in[1], On: n.On, Lookup: n.Lookup}
}

// Output implements Node.
func (n *Join) Output() ColList {
	if n.Kind == SemiJoin || n.Kind == AntiJoin {
		return n.Left.Output()
	}
	if c := &n.out; c.cols == nil || c.left != n.Left || c.right != n.Right || c.kind != n.Kind {
		l, r := n.Left.Output(), n.Right.Output()
		*c = joinOutput{cols: append(append(make(ColList, 0, len(l)+len(r)), l...), r...), left: n.Left, right: n.Right, kind: n.Kind}
	}
	return n.out.cols
}

// OutputSet returns n's output columns as a set. A join keeps it with its
// output columns: rules ask which side of every join of a tree a column
// comes from, and building the set each time costs the size of the tree.
func OutputSet(n Node) ColSet {
	j, ok := n.(*Join)
	if !ok {
		return n.Output().ToSet()
	}
	if j.Kind == SemiJoin || j.Kind == AntiJoin {
		return OutputSet(j.Left)
	}
	cols := j.Output() // refreshes the cache when the sides changed
	if !j.out.hasSet {
		j.out.set, j.out.hasSet = cols.ToSet(), true
	}
	return j.out.set
}

// Props implements Node. An inner or semi join of append-only inputs only
// appends; an outer join retracts its NULL-padded rows when a match
// arrives, and an anti join retracts a row when its first match arrives.
// A row of an inner join is identified by a key of each side.
func (n *Join) Props() *Props {
	if n.props == nil {
		l, r := n.Left.Props(), n.Right.Props()
		p := &Props{Bounded: l.Bounded && r.Bounded, Watermarked: l.Watermarked && r.Watermarked}
		if n.Kind == InnerJoin && !n.Lookup {
			// A pair is identified by a key of each side.
			for _, lk := range l.Keys {
				for _, rk := range r.Keys {
					p.Keys = append(p.Keys, lk.Union(rk))
				}
			}
		}
		tb, windowed := n.Windowed()
		if !windowed && !n.Lookup {
			// A regular join emits a match when its later row arrives,
			// whatever the watermark: its output carries none (the
			// runtime stops watermarks there, exec.WatermarkAbsorber),
			// so windows above it close only when the input ends.
			p.Watermarked = false
		}
		switch {
		case windowed:
			// Both sides' state is freed by the watermark, and an outer
			// join (of append-only inputs) pads a row only then, once:
			// the result only appends, unless an inner join's input
			// retracts. Every change of the result, retractions too, is
			// made by a change of one side and pairs it with a row of the
			// other that the bound keeps on the watermark's side of it.
			p.AppendOnly = l.AppendOnly && r.AppendOnly
			if n.Kind == InnerJoin {
				// A change after W of the left time L is made by a left
				// change (L >= W - LeftLag) or by a right one
				// (R >= W - RightLag) matching rows with L >= R + Lo; the
				// right time R likewise, with R >= L - Hi.
				p.addTime(tb.Left, max(tb.LeftLag, tb.RightLag-tb.Lo))
				p.addTime(tb.Right, max(tb.RightLag, tb.LeftLag+tb.Hi))
			}
		case n.Lookup:
			// Only the stream's rows produce output, each once.
			p.AppendOnly, p.Watermarked = l.AppendOnly, l.Watermarked
		case n.Kind == InnerJoin:
			p.AppendOnly = l.AppendOnly && r.AppendOnly
		case n.Kind == SemiJoin:
			p.AppendOnly = l.AppendOnly && r.AppendOnly
			p.Keys = l.Keys
		case n.Kind == AntiJoin:
			p.Keys = l.Keys
		}
		n.props = p
	}
	return n.props
}

// Windowed returns the join's time bound when it makes an interval or
// window join: its condition bounds the difference of a time column of
// each side on both sides (TimeBound), and either both inputs only append
// (joined INNER, LEFT, RIGHT or FULL; an outer join pads an unmatched row
// when it is freed), or the join is INNER, both inputs carry watermarks,
// and a side that retracts keeps its rows until the watermark passes
// their time plus their lag (Lo <= RightLag - LeftLag for the left side,
// Hi >= RightLag - LeftLag for the right; with time columns, Lo <= 0 and
// Hi >= 0). Its state is then freed as the watermark passes, exactly: a
// time column promises that every change after watermark W — a
// retraction too, as a windowed aggregate emits until its window closes —
// has a time of at least W (W - lag for a column of TimeLags), so a row
// whose deadline W passed can neither match a later change nor be
// retracted by one, and a retraction before then finds its row and the
// rows it matched still held.
func (n *Join) Windowed() (TimeBound, bool) {
	if n.Lookup || n.Kind == SemiJoin || n.Kind == AntiJoin {
		return TimeBound{}, false
	}
	l, r := n.Left.Props(), n.Right.Props()
	if (!l.AppendOnly || !r.AppendOnly) && (n.Kind != InnerJoin || !l.Watermarked || !r.Watermarked) {
		return TimeBound{}, false
	}
	tb, ok := n.TimeBound()
	if !ok || !tb.Bounded() {
		return TimeBound{}, false
	}
	// A left row is freed once the watermark passes its time - Lo +
	// RightLag, a right row once it passes its time + Hi + LeftLag; a
	// retracting side's row must outlive its own retractions, which come
	// until the watermark passes its time + its lag.
	if !l.AppendOnly && tb.Lo > tb.RightLag-tb.LeftLag || !r.AppendOnly && tb.Hi < tb.RightLag-tb.LeftLag {
		return TimeBound{}, false
	}
	return tb, true
}

// Describe implements Node.
func (n *Join) Describe(md *Metadata) (string, []Attr) {
	attrs := []Attr{{"", n.Kind.String()}}
	if n.Lookup {
		attrs = append(attrs, Attr{"", "lookup"})
	}
	if tb, ok := n.Windowed(); ok {
		attrs = append(attrs, Attr{"time", md.Ref(tb.Left).String() + " - " + md.Ref(tb.Right).String() + " in " + tb.String()})
	}
	if n.On != nil {
		attrs = append(attrs, Attr{"on", n.On.String()})
	}
	return "Join", attrs
}

// ColsRead returns the columns n's own expressions and keys read (not its
// inputs').
func ColsRead(n Node) ColSet {
	var s ColSet
	add := func(e Expr) {
		if e != nil {
			s = s.Union(ColsUsed(e))
		}
	}
	addArgs := func(aggs []AggCall) {
		for _, a := range aggs {
			if a.Arg != 0 {
				s.Add(a.Arg)
			}
		}
	}
	switch n := n.(type) {
	case *Filter:
		add(n.Pred)
	case *Project:
		s = ItemCols(n.Items)
	case *Calc:
		s = ItemCols(n.Items, n.Pred)
	case *Join:
		add(n.On)
	case *Apply:
		add(n.On)
	case *Aggregate:
		s = n.Group.ToSet()
		addArgs(n.Aggs)
	case *SessionAggregate:
		s = n.Keys.ToSet()
		s.Add(n.TimeCol)
		addArgs(n.Aggs)
	case *Window:
		s.Add(n.TimeCol)
	case *TemporalFilter:
		s.Add(n.Col)
	case *Sort:
		s = orderCols(nil, n.Keys)
	case *TopN:
		s = orderCols(n.Partition, n.Order)
	case *RowNumber:
		s = orderCols(n.Partition, n.Order)
	case *OverAggregate:
		s = orderCols(n.Partition, n.Order)
		addArgs(n.Aggs)
		for _, f := range n.Funcs {
			if f.Arg != 0 {
				s.Add(f.Arg)
			}
			if f.Default != 0 {
				s.Add(f.Default)
			}
		}
	case *Union:
		for _, c := range n.InCols {
			s = s.Union(c.ToSet())
		}
	case *SetOp:
		s = n.LeftCols.ToSet().Union(n.RightCols.ToSet())
	}
	return s
}

// orderCols returns the partition columns and the columns of the sort keys.
func orderCols(partition ColList, keys []SortKey) ColSet {
	s := partition.ToSet()
	for _, k := range keys {
		s.Add(k.Col)
	}
	return s
}

// ReadsTable reports whether n reads a table through filters and
// projections only: its rows are the table's current rows, and its state
// is bounded by the table's size.
func ReadsTable(n Node) bool {
	for {
		switch x := n.(type) {
		case *Scan:
			return x.Object.Kind == catalog.Table
		case *Filter, *Project, *Calc:
			n = x.Inputs()[0]
		default:
			return false
		}
	}
}
