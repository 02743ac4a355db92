package plan

import "strings"

// Apply is a dependent join, the binder's form of a subquery: Right is
// evaluated once for each row of Left and may read Left's columns (its
// outer references, OuterCols); the rows Right produces for a left row are
// joined with it as a Join of Kind would, on On. A scalar subquery is a
// Single LeftJoin apply (its value is NULL when Right is empty, and more
// than one row is an error); EXISTS and IN in a WHERE conjunct are Semi
// and Anti applies; anywhere else they are built from aggregates of Right
// (planner/subquery.go).
//
// No operator runs an Apply: the optimizer's decorrelation rules
// (optimizer/rules/apply_*.go, unnest_apply.go) rewrite every Apply into
// joins and aggregates before anything else looks at the plan.
type Apply struct {
	Kind        JoinKind // Inner, Left, Semi or Anti
	Left, Right Node
	On          Expr // over both sides' columns; nil is TRUE
	// Single makes more than one row of Right for a left row an error
	// (a scalar subquery), reported at Pos.
	Single bool
	Pos    Pos
	props  *Props
}

var _ Node = (*Apply)(nil)

func (*Apply) nodeMarker() {}

// Inputs implements Node.
func (n *Apply) Inputs() []Node { return []Node{n.Left, n.Right} }

// WithInputs implements Node.
func (n *Apply) WithInputs(in ...Node) Node {
	checkArity(n, in, 2)
	return &Apply{Kind: n.Kind, Left: in[0], Right: in[1], On: n.On, Single: n.Single, Pos: n.Pos}
}

// Output implements Node: Left's columns, then Right's unless the apply is
// a semi or anti join.
func (n *Apply) Output() ColList {
	l := n.Left.Output()
	if n.Kind == SemiJoin || n.Kind == AntiJoin {
		return l
	}
	return append(append(make(ColList, 0, len(l)+len(n.Right.Output())), l...), n.Right.Output()...)
}

// Props implements Node: those of a regular join of the same kind (the
// apply becomes one), except that a single-row left apply keeps each left
// row once, and so its keys.
func (n *Apply) Props() *Props {
	if n.props == nil {
		l, r := n.Left.Props(), n.Right.Props()
		p := &Props{Bounded: l.Bounded && r.Bounded}
		switch n.Kind {
		case InnerJoin:
			p.AppendOnly = l.AppendOnly && r.AppendOnly
		case SemiJoin:
			p.AppendOnly = l.AppendOnly && r.AppendOnly
			p.Keys = l.Keys
		case AntiJoin:
			p.Keys = l.Keys
		case LeftJoin:
			if n.Single {
				p.Keys = l.Keys
			}
		}
		n.props = p
	}
	return n.props
}

// Describe implements Node.
func (n *Apply) Describe(md *Metadata) (string, []Attr) {
	attrs := []Attr{{"", n.Kind.String()}}
	if n.Single {
		attrs = append(attrs, Attr{"", "single"})
	}
	if outer := OuterCols(n.Right); !outer.Empty() {
		names := make([]string, 0, outer.Len())
		for _, c := range outer.Ordered() {
			names = append(names, md.Ref(c).String())
		}
		attrs = append(attrs, Attr{"outer", "(" + strings.Join(names, ", ") + ")"})
	}
	if n.On != nil {
		attrs = append(attrs, Attr{"on", n.On.String()})
	}
	return "Apply", attrs
}

// OuterCols returns the columns n's operators read that no operator of n
// produces: the outer references of a subquery's plan (empty once it is
// decorrelated).
func OuterCols(n Node) ColSet {
	var read, made ColSet
	WalkNodes(n, func(x Node) {
		read = read.Union(ColsRead(x))
		for _, c := range x.Output() {
			made.Add(c)
		}
	})
	return read.Difference(made)
}

// SingleRowFunc names the internal function that checks a scalar
// subquery's row count (exec/expr's single_row): SingleRow(n, v) is v, or
// an error when n > 1.
const SingleRowFunc = "$single_row"

// SingleRow calls SingleRowFunc: v, checked against the count n.
func SingleRow(n, v Expr, pos Pos) Expr {
	return &Func{Name: SingleRowFunc, Args: []Expr{n, v}, Typ: v.Type(), Null: true, Pos: pos}
}
