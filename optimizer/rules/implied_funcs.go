package rules

import (
	"github.com/eddysql/eddy/planner/plan"
)

// This file derives what a subtree guarantees about its rows: the
// conjuncts that are TRUE on every row a node outputs. InferJoinPredicates
// reads them to find constant restrictions of join keys, and uses implied
// (as EliminateRedundant does) to tell whether a conjunct would repeat one
// the subtree already applies. Both directions must agree, or a rule that
// adds a conjunct and one that removes it could undo each other.

// implied reports whether every row n outputs makes cj TRUE, because a
// filter (or a join condition) below n tests cj on the values those rows
// carry. It never looks at data: a false answer means "not known".
func implied(c *Context, n plan.Node, cj plan.Expr) bool {
	if isVolatile(cj) {
		return false
	}
	cj = canonical(c, cj)
	if plan.IsTrue(cj) {
		return true
	}
	return impliedBy(c, n, cj)
}

// impliedBy is implied for a canonical, non-volatile cj. It follows one
// path down the plan (all inputs of a union), so its cost grows with the
// plan's depth, as the driver's own walk does.
func impliedBy(c *Context, n plan.Node, cj plan.Expr) bool {
	return impliedOver(c, n, cj, plan.ColsUsed(cj))
}

// impliedOver is impliedBy with the columns cj reads, computed once for
// the path down the plan rather than at every node of it.
func impliedOver(c *Context, n plan.Node, cj plan.Expr, cols plan.ColSet) bool {
	c.impliedSteps++
	if !c.mayImply(n) {
		return false
	}
	switch n := n.(type) {
	case *plan.Filter:
		return keepsNoRow(n.Pred) || hasCanonical(c, plan.Conjuncts(n.Pred), cj) || impliedOver(c, n.Input, cj, cols)
	case *plan.Project:
		s, ok := throughItems(c, cj, n.Items)
		return ok && (plan.IsTrue(s) || impliedBy(c, n.Input, s))
	case *plan.Calc:
		if n.Pred != nil && keepsNoRow(n.Pred) {
			return true
		}
		s, ok := throughItems(c, cj, n.Items)
		if !ok {
			return false
		}
		if plan.IsTrue(s) || (n.Pred != nil && hasCanonical(c, plan.Conjuncts(n.Pred), s)) {
			return true
		}
		return impliedBy(c, n.Input, s)
	case *plan.Sort:
		return impliedOver(c, n.Input, cj, cols)
	case *plan.Limit:
		return impliedOver(c, n.Input, cj, cols)
	case *plan.Window:
		return !cols.Contains(n.Start) && !cols.Contains(n.End) && impliedOver(c, n.Input, cj, cols)
	case *plan.TopN:
		return (n.Out == 0 || !cols.Contains(n.Out)) && impliedOver(c, n.Input, cj, cols)
	case *plan.RowNumber:
		return !cols.Contains(n.Out) && impliedOver(c, n.Input, cj, cols)
	case *plan.Aggregate:
		// A group's row carries the grouping values of its input rows. A
		// global aggregate outputs its row even over no input, so nothing
		// holds vacuously there.
		return len(n.Group) > 0 && cols.SubsetOf(n.Group.ToSet()) && impliedOver(c, n.Input, cj, cols)
	case *plan.SessionAggregate:
		return len(n.Keys) > 0 && cols.SubsetOf(n.Keys.ToSet()) && impliedOver(c, n.Input, cj, cols)
	case *plan.Join:
		left := plan.OutputSet(n.Left)
		if cols.SubsetOf(left) && !padsLeft(n.Kind) && impliedOver(c, n.Left, cj, cols) {
			return true
		}
		if n.Kind == plan.SemiJoin || n.Kind == plan.AntiJoin {
			// Semi: every output row has a match, for which ON is TRUE.
			return n.Kind == plan.SemiJoin && n.On != nil && cols.SubsetOf(left) && hasCanonical(c, plan.Conjuncts(n.On), cj)
		}
		if cols.SubsetOf(plan.OutputSet(n.Right)) && !padsRight(n.Kind) && impliedOver(c, n.Right, cj, cols) {
			return true
		}
		return n.Kind == plan.InnerJoin && n.On != nil && hasCanonical(c, plan.Conjuncts(n.On), cj)
	case *plan.Union:
		// Every row comes from one input, where the union's columns are
		// that input's columns.
		for k, in := range n.Ins {
			s, ok := renameCols(c, cj, n.Cols, n.InCols[k])
			if !ok || !impliedBy(c, in, s) {
				return false
			}
		}
		return len(n.Ins) > 0
	case *plan.SetOp:
		// Every row of INTERSECT or EXCEPT is a row of the left input (and,
		// for INTERSECT, of the right one), with the same values.
		if s, ok := renameCols(c, cj, n.Cols, n.LeftCols); ok && impliedBy(c, n.Left, s) {
			return true
		}
		if n.Kind != plan.Intersect {
			return false
		}
		s, ok := renameCols(c, cj, n.Cols, n.RightCols)
		return ok && impliedBy(c, n.Right, s)
	}
	return false
}

// mayImply reports whether anything in n's subtree could make a conjunct
// implied: a filter, a projection (whose substitution may fold a conjunct
// to TRUE) or a join condition — the nodes where impliedOver can answer
// true. Without one, implied is false at once rather than after a walk
// down the subtree: the common case while a WHERE clause is pushed into a
// deep tree of cross joins, where the filter made at every level would
// otherwise walk the untouched tree below it, a cost cubic in its depth.
// Plans are immutable, so the answer is kept per node.
func (c *Context) mayImply(n plan.Node) bool {
	if v, ok := c.mayImplyMemo[n]; ok {
		return v
	}
	v := false
	switch x := n.(type) {
	case *plan.Filter, *plan.Project, *plan.Calc:
		v = true
	case *plan.Join:
		v = x.On != nil
	}
	for _, in := range n.Inputs() {
		if v {
			break
		}
		v = c.mayImply(in)
	}
	if c.mayImplyMemo == nil {
		c.mayImplyMemo = map[plan.Node]bool{}
	}
	c.mayImplyMemo[n] = v
	return v
}

// keepsNoRow reports whether a filter's predicate has a conjunct that is
// the constant FALSE or NULL: the filter outputs no row, so every conjunct
// is TRUE on every row it outputs. Without this, InferJoinPredicates would
// add a restriction to a filter FoldConstants then folds back to FALSE,
// forever.
func keepsNoRow(pred plan.Expr) bool {
	for _, cj := range plan.Conjuncts(pred) {
		if b, ok := boolConst(cj); ok && !b || isNullConst(cj) {
			return true
		}
	}
	return false
}

// knownConjuncts lists conjuncts TRUE on every row n outputs, over n's
// output columns only: the counterpart of implied that enumerates. It
// follows the same nodes, except that it sees through a projection only
// for conjuncts over columns the projection forwards (possibly renamed).
func knownConjuncts(c *Context, n plan.Node) []plan.Expr {
	switch n := n.(type) {
	case *plan.Filter:
		return append(nonVolatile(plan.Conjuncts(n.Pred)), knownConjuncts(c, n.Input)...)
	case *plan.Project:
		return forwarded(c, knownConjuncts(c, n.Input), n.Items)
	case *plan.Calc:
		var in []plan.Expr
		if n.Pred != nil {
			in = nonVolatile(plan.Conjuncts(n.Pred))
		}
		return forwarded(c, append(in, knownConjuncts(c, n.Input)...), n.Items)
	case *plan.Sort:
		return knownConjuncts(c, n.Input)
	case *plan.Limit:
		return knownConjuncts(c, n.Input)
	case *plan.Window:
		return knownConjuncts(c, n.Input)
	case *plan.TopN:
		return knownConjuncts(c, n.Input)
	case *plan.RowNumber:
		return knownConjuncts(c, n.Input)
	case *plan.Aggregate:
		if len(n.Group) == 0 {
			return nil
		}
		return overCols(knownConjuncts(c, n.Input), n.Group.ToSet())
	case *plan.SessionAggregate:
		if len(n.Keys) == 0 {
			return nil
		}
		return overCols(knownConjuncts(c, n.Input), n.Keys.ToSet())
	case *plan.Join:
		var out []plan.Expr
		if !padsLeft(n.Kind) {
			out = knownConjuncts(c, n.Left)
		}
		switch n.Kind {
		case plan.SemiJoin:
			if n.On != nil {
				out = append(out, overCols(nonVolatile(plan.Conjuncts(n.On)), plan.OutputSet(n.Left))...)
			}
			return out
		case plan.AntiJoin:
			return out
		}
		if !padsRight(n.Kind) {
			out = append(out, knownConjuncts(c, n.Right)...)
		}
		if n.Kind == plan.InnerJoin && n.On != nil {
			out = append(out, nonVolatile(plan.Conjuncts(n.On))...)
		}
		return out
	}
	return nil
}

// padsLeft reports whether the join outputs right rows with NULLs in place
// of the left side's columns.
func padsLeft(k plan.JoinKind) bool { return k == plan.RightJoin || k == plan.FullJoin }

// padsRight reports whether the join outputs left rows with NULLs in place
// of the right side's columns.
func padsRight(k plan.JoinKind) bool { return k == plan.LeftJoin || k == plan.FullJoin }

// throughItems rewrites cj, an expression over a projection's output, over
// its input, and folds it (a substituted constant may decide it). It fails
// when that would evaluate a volatile projection a second time.
func throughItems(c *Context, cj plan.Expr, items []plan.ProjItem) (plan.Expr, bool) {
	used := plan.ColsUsed(cj)
	for _, it := range items {
		if used.Contains(it.ID) && isVolatile(it.Expr) {
			return nil, false
		}
	}
	return canonical(c, substitute(cj, items)), true
}

// renameCols rewrites e over columns from into the columns to, position by
// position. It fails when e reads a column from does not list.
func renameCols(c *Context, e plan.Expr, from, to plan.ColList) (plan.Expr, bool) {
	ok := true
	out := plan.MapColRefs(e, func(r *plan.ColRef) plan.Expr {
		i := from.Find(r.ID)
		if i < 0 {
			ok = false
			return r
		}
		return c.Md.Ref(to[i])
	})
	return out, ok
}

// forwarded rewrites the conjuncts over a projection's input that read
// only columns the projection forwards as they are (under their own ID or
// another) over its output, and drops the others.
func forwarded(c *Context, conj []plan.Expr, items []plan.ProjItem) []plan.Expr {
	out := map[plan.ColumnID]plan.ColumnID{}
	for _, it := range items {
		if r, ok := it.Expr.(*plan.ColRef); ok {
			if _, seen := out[r.ID]; !seen {
				out[r.ID] = it.ID
			}
		}
	}
	var res []plan.Expr
	for _, cj := range conj {
		ok := true
		e := plan.MapColRefs(cj, func(r *plan.ColRef) plan.Expr {
			id, fw := out[r.ID]
			if !fw {
				ok = false
				return r
			}
			if id == r.ID {
				return r
			}
			return c.Md.Ref(id)
		})
		if ok {
			res = append(res, e)
		}
	}
	return res
}

// overCols keeps the conjuncts that read only columns of cols.
func overCols(conj []plan.Expr, cols plan.ColSet) []plan.Expr {
	var out []plan.Expr
	for _, cj := range conj {
		if plan.ColsUsed(cj).SubsetOf(cols) {
			out = append(out, cj)
		}
	}
	return out
}

func nonVolatile(conj []plan.Expr) []plan.Expr {
	var out []plan.Expr
	for _, cj := range conj {
		if !isVolatile(cj) {
			out = append(out, cj)
		}
	}
	return out
}

// hasConjunct reports whether conj holds an expression equal to e.
func hasConjunct(conj []plan.Expr, e plan.Expr) bool {
	for _, x := range conj {
		if exprEqual(x, e) {
			return true
		}
	}
	return false
}

// hasCanonical reports whether conj holds e, which is in canonical form,
// as it is or once put in canonical form itself (when the rules that
// produce that form are disabled, or have not reached conj yet).
func hasCanonical(c *Context, conj []plan.Expr, e plan.Expr) bool {
	for _, x := range conj {
		if !isVolatile(x) && (exprEqual(x, e) || exprEqual(canonical(c, x), e)) {
			return true
		}
	}
	return false
}

// canonical puts e in the form the normalize rules leave expressions in
// (constants folded, OR-ed equalities as IN lists), so that a conjunct a
// rule derives compares equal to one the other rules have rewritten.
func canonical(c *Context, e plan.Expr) plan.Expr {
	if f, ok := fold(c, e); ok {
		e = f
	}
	if r, ok := orEqualitiesToIn(e); ok {
		e = r
	}
	return e
}
