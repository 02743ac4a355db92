package plan

import (
	"fmt"
	"slices"

	"github.com/eddysql/eddy/catalog/types"
)

// Children implementations.

func (e *ColRef) Children() []Expr   { return nil }
func (e *InputRef) Children() []Expr { return nil }
func (e *Const) Children() []Expr    { return nil }
func (e *Unary) Children() []Expr    { return []Expr{e.Arg} }
func (e *Binary) Children() []Expr   { return []Expr{e.L, e.R} }
func (e *And) Children() []Expr      { return e.Args }
func (e *Or) Children() []Expr       { return e.Args }
func (e *Not) Children() []Expr      { return []Expr{e.Arg} }
func (e *IsNull) Children() []Expr   { return []Expr{e.Arg} }
func (e *In) Children() []Expr       { return append([]Expr{e.Arg}, e.List...) }
func (e *Like) Children() []Expr     { return []Expr{e.Arg, e.Pattern} }
func (e *Case) Children() []Expr {
	out := make([]Expr, 0, 2*len(e.Whens)+1)
	for _, w := range e.Whens {
		out = append(out, w.Cond, w.Result)
	}
	return append(out, e.Else)
}
func (e *Cast) Children() []Expr { return []Expr{e.Arg} }
func (e *Func) Children() []Expr { return e.Args }

func arity(e Expr, c []Expr, n int) {
	if len(c) != n {
		panic(fmt.Sprintf("plan: %T.WithChildren: got %d children, want %d", e, len(c), n))
	}
}

// WithChildren implementations. They keep everything but the children (the
// source position too), and panic on a wrong arity: that is a broken
// invariant of the caller, not a user error.

func (e *ColRef) WithChildren(c ...Expr) Expr   { arity(e, c, 0); return e }
func (e *InputRef) WithChildren(c ...Expr) Expr { arity(e, c, 0); return e }
func (e *Const) WithChildren(c ...Expr) Expr    { arity(e, c, 0); return e }
func (e *Unary) WithChildren(c ...Expr) Expr {
	arity(e, c, 1)
	return &Unary{Op: e.Op, Arg: c[0], Typ: e.Typ, Pos: e.Pos}
}
func (e *Binary) WithChildren(c ...Expr) Expr {
	arity(e, c, 2)
	return &Binary{Op: e.Op, L: c[0], R: c[1], Typ: e.Typ, Pos: e.Pos}
}
func (e *And) WithChildren(c ...Expr) Expr {
	arity(e, c, len(e.Args))
	return &And{Args: append([]Expr(nil), c...)}
}
func (e *Or) WithChildren(c ...Expr) Expr {
	arity(e, c, len(e.Args))
	return &Or{Args: append([]Expr(nil), c...)}
}
func (e *Not) WithChildren(c ...Expr) Expr { arity(e, c, 1); return &Not{Arg: c[0]} }
func (e *IsNull) WithChildren(c ...Expr) Expr {
	arity(e, c, 1)
	return &IsNull{Arg: c[0], Negated: e.Negated}
}
func (e *In) WithChildren(c ...Expr) Expr {
	arity(e, c, 1+len(e.List))
	return &In{Arg: c[0], List: append([]Expr(nil), c[1:]...), Negated: e.Negated}
}
func (e *Like) WithChildren(c ...Expr) Expr {
	arity(e, c, 2)
	return &Like{Arg: c[0], Pattern: c[1], Escape: e.Escape, Negated: e.Negated}
}
func (e *Case) WithChildren(c ...Expr) Expr {
	arity(e, c, 2*len(e.Whens)+1)
	ws := make([]When, len(e.Whens))
	for i := range ws {
		ws[i] = When{Cond: c[2*i], Result: c[2*i+1]}
	}
	return &Case{Whens: ws, Else: c[len(c)-1], Typ: e.Typ}
}
func (e *Cast) WithChildren(c ...Expr) Expr {
	arity(e, c, 1)
	return &Cast{Arg: c[0], To: e.To, Implicit: e.Implicit, Pos: e.Pos}
}
func (e *Func) WithChildren(c ...Expr) Expr {
	arity(e, c, len(e.Args))
	return &Func{Name: e.Name, Args: append([]Expr(nil), c...), Typ: e.Typ, Null: e.Null, Pos: e.Pos}
}

// Walk calls fn for e and, while fn returns true, for its descendants in
// pre-order.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Rewrite rebuilds e bottom-up: children first, then fn on the rebuilt node.
// Nodes whose children did not change are reused.
func Rewrite(e Expr, fn func(Expr) Expr) Expr {
	kids := e.Children()
	if len(kids) > 0 {
		var nk []Expr
		for i, c := range kids {
			r := Rewrite(c, fn)
			if r != c && nk == nil {
				nk = make([]Expr, len(kids))
				copy(nk, kids[:i])
			}
			if nk != nil {
				nk[i] = r
			}
		}
		if nk != nil {
			e = e.WithChildren(nk...)
		}
	}
	return fn(e)
}

// MapColRefs rebuilds e with each column reference replaced by fn's result
// (fn returns the reference itself to keep it), reusing the nodes under
// which nothing changed.
func MapColRefs(e Expr, fn func(*ColRef) Expr) Expr {
	return Rewrite(e, func(x Expr) Expr {
		if r, ok := x.(*ColRef); ok {
			return fn(r)
		}
		return x
	})
}

// ColsUsed returns the set of ColumnIDs e refers to.
func ColsUsed(e Expr) ColSet { return setOf(appendCols(nil, e)) }

// ColsUsedAll returns the set of ColumnIDs the expressions refer to (nil
// ones skipped). It gathers them all before sorting once: a union per
// expression would cost the square of a wide select list.
func ColsUsedAll(es ...Expr) ColSet {
	var ids []ColumnID
	for _, e := range es {
		ids = appendCols(ids, e)
	}
	return setOf(ids)
}

// ItemCols returns the set of ColumnIDs a projection's expressions (and
// the extra expressions, nil ones skipped) refer to.
func ItemCols(items []ProjItem, extra ...Expr) ColSet {
	var ids []ColumnID
	for _, it := range items {
		ids = appendCols(ids, it.Expr)
	}
	for _, e := range extra {
		ids = appendCols(ids, e)
	}
	return setOf(ids)
}

// appendCols appends the IDs of the column references of e (nil: none).
func appendCols(ids []ColumnID, e Expr) []ColumnID {
	if e == nil {
		return ids
	}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*ColRef); ok {
			ids = append(ids, c.ID)
		}
		return true
	})
	return ids
}

// setOf makes a set of ids, which it sorts in place.
func setOf(ids []ColumnID) ColSet {
	if len(ids) == 0 {
		return ColSet{}
	}
	slices.Sort(ids)
	return ColSet{ids: slices.Compact(ids)}
}

// Conjuncts splits e into its top-level AND terms.
func Conjuncts(e Expr) []Expr {
	if a, ok := e.(*And); ok {
		var out []Expr
		for _, x := range a.Args {
			out = append(out, Conjuncts(x)...)
		}
		return out
	}
	return []Expr{e}
}

// MakeAnd combines conjuncts; nil for none, the term itself for one.
func MakeAnd(es []Expr) Expr {
	var flat []Expr
	for _, e := range es {
		flat = append(flat, Conjuncts(e)...)
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	return &And{Args: flat}
}

// IsConst reports whether e is a literal.
func IsConst(e Expr) bool {
	_, ok := e.(*Const)
	return ok
}

// IsTrue reports whether e is the literal TRUE.
func IsTrue(e Expr) bool {
	c, ok := e.(*Const)
	return ok && !c.Val.Null && c.Typ.Physical() == types.PhysBool && c.Val.I != 0
}
