package rules

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// OrEqualitiesToIn turns a disjunction of equalities between one
// expression and constants into an IN list, in filters, projections and
// join conditions:
//
//	Filter channel = 'a' OR (channel = 'b' OR channel IN ('c', 'd')) OR price > 5
//	  ⇒  Filter channel IN ('a', 'b', 'c', 'd') OR price > 5
//
// Nested ORs are flattened first, so parentheses do not matter; an IN list
// over the same expression merges with the equalities; repeated constants
// are listed once; other disjuncts keep their place. Equalities over
// different expressions form separate lists, and a lone equality stays as
// it is.
//
// Safety: SQL defines x IN (c1, ..., cn) as x = c1 OR ... OR x = cn, and
// eddy's IN follows that definition in three-valued logic: TRUE when some
// element equals x; otherwise NULL when x or some element is NULL; FALSE
// otherwise. So the rewrite holds in projections, where NULL and FALSE
// differ, not only in filters. That includes NULL constants: x = NULL OR
// x = 1 is NULL OR x = 1, which is TRUE when x = 1 and NULL otherwise, and
// so is x IN (NULL, 1). (FoldConstants has usually folded x = NULL to NULL
// by then; join conditions are not folded, so the case does arise.) The
// constants must have the expression's physical type (and, for DECIMAL,
// its scale), as the binder's comparisons give them, so IN compares the
// same values the equalities did. A volatile expression is left alone: the
// equalities evaluate it once each, the IN list once. Negated IN lists
// (NOT IN) are conjunctions and are not merged.
// Profitability: always — the expression is evaluated once per row instead
// of once per equality, the constants are probed as a set, and the result
// is a single conjunct over one column that InferJoinPredicates can carry
// across a join.
type OrEqualitiesToIn struct{}

// Name implements Rule.
func (OrEqualitiesToIn) Name() string { return "OrEqualitiesToIn" }

// Apply implements Rule.
func (OrEqualitiesToIn) Apply(c *Context, n plan.Node) (plan.Node, bool, error) {
	out, ok := rewriteExprs(n, orEqualitiesToIn)
	return out, ok, nil
}

// orEqualitiesToIn rewrites every OR in e and reports whether anything
// changed.
func orEqualitiesToIn(e plan.Expr) (plan.Expr, bool) {
	changed := false
	out := plan.Rewrite(e, func(x plan.Expr) plan.Expr {
		o, ok := x.(*plan.Or)
		if !ok {
			return x
		}
		if r, ok := mergeEqualities(o); ok {
			changed = true
			return r
		}
		return x
	})
	return out, changed
}

// inGroup collects the constants compared with one expression.
type inGroup struct {
	arg     plan.Expr
	list    []plan.Expr
	seen    map[types.Datum]bool // the values in list
	first   plan.Expr            // the only member, when there is one
	members int
}

// mergeEqualities merges the equalities of one OR; it reports false when
// no expression is compared with constants more than once.
func mergeEqualities(o *plan.Or) (plan.Expr, bool) {
	groups := map[uint64][]*inGroup{} // by the hash of their expression
	var slots []any                   // a disjunct kept as is (plan.Expr) or a group's place
	merged := false
	for _, d := range flattenOr(o) {
		arg, list, ok := inTerms(d)
		if !ok {
			slots = append(slots, d)
			continue
		}
		h := exprHash(arg)
		var g *inGroup
		for _, x := range groups[h] {
			if exprEqual(x.arg, arg) {
				g = x
				break
			}
		}
		if g == nil {
			g = &inGroup{arg: arg, first: d, seen: map[types.Datum]bool{}}
			groups[h] = append(groups[h], g)
			slots = append(slots, g)
		}
		g.members++
		merged = merged || g.members > 1
		for _, k := range list {
			g.addConst(k, arg.Type())
		}
	}
	if !merged {
		return o, false
	}
	out := make([]plan.Expr, len(slots))
	for i, s := range slots {
		switch s := s.(type) {
		case plan.Expr:
			out[i] = s
		case *inGroup:
			switch {
			case s.members == 1:
				out[i] = s.first
			case len(s.list) == 1:
				out[i] = &plan.Binary{Op: plan.OpEq, L: s.arg, R: s.list[0], Typ: types.BoolT}
			default:
				out[i] = &plan.In{Arg: s.arg, List: s.list}
			}
		}
	}
	if len(out) == 1 {
		return out[0], true
	}
	return &plan.Or{Args: out}, true
}

// flattenOr lists the disjuncts of o, inlining nested ORs.
func flattenOr(o *plan.Or) []plan.Expr {
	var out []plan.Expr
	for _, a := range o.Args {
		if inner, ok := a.(*plan.Or); ok {
			out = append(out, flattenOr(inner)...)
			continue
		}
		out = append(out, a)
	}
	return out
}

// inTerms matches e = c, c = e and e IN (c, ...) for constants c of e's
// type and a non-volatile, non-constant e.
func inTerms(d plan.Expr) (plan.Expr, []plan.Expr, bool) {
	var arg plan.Expr
	var list []plan.Expr
	switch d := d.(type) {
	case *plan.Binary:
		if d.Op != plan.OpEq {
			return nil, nil, false
		}
		arg, list = d.L, []plan.Expr{d.R}
		if plan.IsConst(d.L) {
			arg, list = d.R, []plan.Expr{d.L}
		}
	case *plan.In:
		if d.Negated {
			return nil, nil, false
		}
		arg, list = d.Arg, d.List
	default:
		return nil, nil, false
	}
	if plan.IsConst(arg) || isVolatile(arg) {
		return nil, nil, false
	}
	t := arg.Type()
	for _, x := range list {
		k, ok := x.(*plan.Const)
		if !ok || !k.Val.Null && !sameRepresentation(k.Typ, t) {
			return nil, nil, false
		}
	}
	return arg, list, true
}

// sameRepresentation reports whether values of types a and b are stored
// alike, so a constant of one compares as a value of the other.
func sameRepresentation(a, b types.T) bool {
	if a.Physical() != b.Physical() || a.Physical() == types.PhysNull {
		return false
	}
	return a.Kind != types.Decimal || a.Scale == b.Scale
}

// addConst appends constant k to the group's list unless an equal value
// is there (found through seen, so a list of thousands of values is built
// in linear time); a NULL takes the list's type.
func (g *inGroup) addConst(k plan.Expr, t types.T) {
	c := k.(*plan.Const)
	if g.seen[c.Val] {
		return
	}
	g.seen[c.Val] = true
	if c.Val.Null && c.Typ != t {
		c = &plan.Const{Val: types.NullDatum, Typ: t}
	}
	g.list = append(g.list, c)
}
