package physical

import (
	"slices"

	"github.com/eddysql/eddy/optimizer/cost"
	"github.com/eddysql/eddy/planner/plan"
)

// SetOp is INTERSECT or EXCEPT, ALL or DISTINCT, of its two inputs (the
// left, then the right), which have its columns. It keeps each distinct
// row's count in both inputs, so rows are partitioned by all their
// columns: a hash exchange on every column feeds each instance from both
// sides.
type SetOp struct {
	Header
	Kind plan.SetOpKind
	All  bool
}

var _ Node = (*SetOp)(nil)

// Describe implements Node.
func (n *SetOp) Describe() (string, []plan.Attr) {
	name, q := "Intersect", "DISTINCT"
	if n.Kind == plan.Except {
		name = "Except"
	}
	if n.All {
		q = "ALL"
	}
	return name, []plan.Attr{{Value: q}, {Key: "key", Value: list(colNames(n.Cols))}}
}

// buildSetOp builds a set operation behind a hash exchange on all the
// columns of each input, put in the operation's column order first.
//
// Estimates: the state holds every distinct row of both inputs (their
// integrals); the output rate is at most the input rate (a change of a
// row's count changes its multiplicity by at most one, except when EXCEPT
// ALL's right count crosses the left's), taken as half of it.
func (b *builder) buildSetOp(n *plan.SetOp) (Node, error) {
	s := &SetOp{Kind: n.Kind, All: n.All}
	keys := make([]int, len(n.Cols))
	for i := range keys {
		keys[i] = i
	}
	var ins []Node
	rate := 0.0
	bounded, expire := true, true
	for k, input := range n.Inputs() {
		cols := []plan.ColList{n.LeftCols, n.RightCols}[k]
		in, err := b.build(input)
		if err != nil {
			return nil, err
		}
		if out := input.Output(); !slices.Equal(out, cols) {
			c := &Calc{Header: b.header(cols, in.Hdr().Parallelism, in)}
			for _, id := range cols {
				col := b.md.Column(id)
				c.Projs = append(c.Projs, &plan.InputRef{Ord: out.Find(id), Name: col.Name, Typ: col.Type, Null: col.Nullable})
			}
			c.Est.RowsPerSec = in.Hdr().Est.RowsPerSec
			in = c
		}
		rate += in.Hdr().Est.RowsPerSec
		p := input.Props()
		bounded, expire = bounded && p.Bounded, expire && (p.Bounded || p.RowsExpire)
		ins = append(ins, b.exchange(in, Hash, keys, b.opts.Parallelism))
	}
	s.Header = b.header(n.Cols, b.opts.Parallelism, ins...)
	rows := cost.DefaultDistinct
	if bounded {
		rows = cost.DefaultSnapshotRows
	}
	s.Est = Estimate{RowsPerSec: rate / 2, Stateful: true, StateRows: rows, StateBytes: rows * (cost.RowWidth(s.Types()) + 16),
		StateBounded: expire, Growth: "with every distinct row of either input"}
	return s, nil
}
