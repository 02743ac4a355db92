package optimizer

import (
	"fmt"
	"slices"

	"github.com/eddysql/eddy/planner/plan"
)

// checkRewrite verifies that a rule's output can replace its input: the same
// output columns in the same order with the same types, and every column
// reference in the new subtree bound to a column its node's inputs produce.
func checkRewrite(md *plan.Metadata, rule string, before, after plan.Node) error {
	if !slices.Equal(before.Output(), after.Output()) {
		return &InternalError{Rule: rule, Msg: fmt.Sprintf("output columns changed from %v to %v", before.Output(), after.Output())}
	}
	if err := CheckPlan(md, after); err != nil {
		return &InternalError{Rule: rule, Msg: err.Error()}
	}
	return nil
}

// CheckPlan verifies that every expression of the plan refers only to columns
// its node's inputs produce, with the types the metadata records.
func CheckPlan(md *plan.Metadata, n plan.Node) error {
	return checkPlan(md, n, plan.ColSet{})
}

// checkPlan is CheckPlan below applies whose left sides produce outer: the
// right side of an Apply may also read its left side's columns.
func checkPlan(md *plan.Metadata, n plan.Node, outer plan.ColSet) error {
	for k, in := range n.Inputs() {
		o := outer
		if a, ok := n.(*plan.Apply); ok && k == 1 {
			o = o.Union(plan.OutputSet(a.Left))
		}
		if err := checkPlan(md, in, o); err != nil {
			return err
		}
	}
	avail := outer
	for _, in := range n.Inputs() {
		avail = avail.Union(plan.OutputSet(in))
	}
	check := func(e plan.Expr) error {
		var err error
		plan.Walk(e, func(x plan.Expr) bool {
			c, ok := x.(*plan.ColRef)
			if !ok || err != nil {
				return err == nil
			}
			if !avail.Contains(c.ID) {
				err = fmt.Errorf("%s: column %s (#%d) is not produced by its input", plan.FormatLine(md, n), c.Name, c.ID)
			} else if t := md.Column(c.ID).Type; t != c.Typ {
				err = fmt.Errorf("%s: column %s has type %s, metadata says %s", plan.FormatLine(md, n), c.Name, c.Typ, t)
			}
			return err == nil
		})
		return err
	}
	switch n := n.(type) {
	case *plan.Filter:
		return check(n.Pred)
	case *plan.Project:
		return checkItems(md, n.Items, check)
	case *plan.Calc:
		if n.Pred != nil {
			if err := check(n.Pred); err != nil {
				return err
			}
		}
		return checkItems(md, n.Items, check)
	case *plan.Aggregate:
		for _, g := range n.Group {
			if !avail.Contains(g) {
				return fmt.Errorf("%s: grouping column #%d is not produced by its input", plan.FormatLine(md, n), g)
			}
		}
		for _, a := range n.Aggs {
			if a.Arg != 0 && !avail.Contains(a.Arg) {
				return fmt.Errorf("%s: aggregate argument #%d is not produced by its input", plan.FormatLine(md, n), a.Arg)
			}
		}
	case *plan.Window:
		if !avail.Contains(n.TimeCol) {
			return fmt.Errorf("%s: time column #%d is not produced by its input", plan.FormatLine(md, n), n.TimeCol)
		}
	case *plan.SessionAggregate:
		cols := append(append(plan.ColList(nil), n.Keys...), n.TimeCol)
		for _, a := range n.Aggs {
			if a.Arg != 0 {
				cols = append(cols, a.Arg)
			}
		}
		for _, c := range cols {
			if !avail.Contains(c) {
				return fmt.Errorf("%s: column #%d is not produced by its input", plan.FormatLine(md, n), c)
			}
		}
	case *plan.Union:
		for k, in := range n.Ins {
			out := in.Output().ToSet()
			if len(n.InCols[k]) != len(n.Cols) {
				return fmt.Errorf("%s: input %d maps %d columns, the union has %d", plan.FormatLine(md, n), k, len(n.InCols[k]), len(n.Cols))
			}
			for i, c := range n.InCols[k] {
				if !out.Contains(c) {
					return fmt.Errorf("%s: input %d does not produce column #%d", plan.FormatLine(md, n), k, c)
				}
				if md.Column(c).Type != md.Column(n.Cols[i]).Type {
					return fmt.Errorf("%s: input %d column %d is %s, the union's %s", plan.FormatLine(md, n), k, i, md.Column(c).Type, md.Column(n.Cols[i]).Type)
				}
			}
		}
	case *plan.SetOp:
		maps := []plan.ColList{n.LeftCols, n.RightCols}
		for k, in := range n.Inputs() {
			cols, out := maps[k], in.Output().ToSet()
			if len(cols) != len(n.Cols) {
				return fmt.Errorf("%s: input %d maps %d columns, the operation has %d", plan.FormatLine(md, n), k, len(cols), len(n.Cols))
			}
			for i, c := range cols {
				if !out.Contains(c) {
					return fmt.Errorf("%s: input %d does not produce column #%d", plan.FormatLine(md, n), k, c)
				}
				if md.Column(c).Type != md.Column(n.Cols[i]).Type {
					return fmt.Errorf("%s: input %d column %d is %s, the operation's %s", plan.FormatLine(md, n), k, i, md.Column(c).Type, md.Column(n.Cols[i]).Type)
				}
			}
		}
	case *plan.RowNumber, *plan.TopN:
		var part plan.ColList
		var order []plan.SortKey
		if r, ok := n.(*plan.RowNumber); ok {
			part, order = r.Partition, r.Order
		} else {
			t := n.(*plan.TopN)
			part, order = t.Partition, t.Order
		}
		for _, k := range order {
			part = append(part, k.Col)
		}
		for _, c := range part {
			if !avail.Contains(c) {
				return fmt.Errorf("%s: column #%d is not produced by its input", plan.FormatLine(md, n), c)
			}
		}
	case *plan.TemporalFilter:
		if !avail.Contains(n.Col) {
			return fmt.Errorf("%s: column #%d is not produced by its input", plan.FormatLine(md, n), n.Col)
		}
	case *plan.OverAggregate:
		if !plan.ColsRead(n).SubsetOf(avail) {
			return fmt.Errorf("%s: columns %v are not all produced by its input", plan.FormatLine(md, n), plan.ColsRead(n))
		}
	case *plan.Sort:
		for _, k := range n.Keys {
			if !avail.Contains(k.Col) {
				return fmt.Errorf("%s: sort column #%d is not produced by its input", plan.FormatLine(md, n), k.Col)
			}
		}
	case *plan.Apply:
		if n.On != nil {
			return check(n.On)
		}
	case *plan.Scan:
		if len(n.Cols) != len(n.Ords) {
			return fmt.Errorf("%s: %d columns but %d ordinals", plan.FormatLine(md, n), len(n.Cols), len(n.Ords))
		}
	}
	return nil
}

func checkItems(md *plan.Metadata, items []plan.ProjItem, check func(plan.Expr) error) error {
	for _, it := range items {
		if err := check(it.Expr); err != nil {
			return err
		}
		if t := md.Column(it.ID).Type; t != it.Expr.Type() && it.Expr.Type().Kind != 0 {
			return fmt.Errorf("projection %s has type %s, its column #%d has %s", it.Expr, it.Expr.Type(), it.ID, t)
		}
	}
	return nil
}
