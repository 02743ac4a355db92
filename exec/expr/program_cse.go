package expr

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddysql/eddy/planner/plan"
)

// shareSubexpressions finds the subexpressions that occur more than once
// among roots in positions evaluated unconditionally, largest first, and
// replaces each by a reference to a temporary column: ordinal nIn+k for
// defs[k]. A definition may itself read earlier or later temporaries. It
// returns the definitions and the rewritten roots.
func shareSubexpressions(roots []plan.Expr, nIn int) (defs []plan.Expr, out []plan.Expr) {
	out = append([]plan.Expr(nil), roots...)
	for {
		counts := map[string]int{}
		sizes := map[string]int{}
		exprs := map[string]plan.Expr{}
		visit := func(e plan.Expr) {
			forEachShareable(e, func(x plan.Expr) {
				k := exprKey(x)
				counts[k]++
				if _, ok := exprs[k]; !ok {
					exprs[k], sizes[k] = x, exprSize(x)
				}
			})
		}
		for _, e := range out {
			visit(e)
		}
		for _, d := range defs {
			// A definition's own root is not an occurrence, its subtrees are.
			forEachChild(d, visit)
		}
		best := ""
		for k, n := range counts {
			if n < 2 {
				continue
			}
			// Largest first; ties broken by key so compilation is deterministic.
			if best == "" || sizes[k] > sizes[best] || sizes[k] == sizes[best] && k < best {
				best = k
			}
		}
		if best == "" {
			return defs, out
		}
		x := exprs[best]
		ref := &plan.InputRef{Ord: nIn + len(defs), Name: "$t" + strconv.Itoa(len(defs)), Typ: x.Type(), Null: x.Nullable()}
		replace := func(e plan.Expr) plan.Expr { return replaceShareable(e, best, ref) }
		for i, e := range out {
			out[i] = replace(e)
		}
		for i, d := range defs {
			defs[i] = replaceChildren(d, replace)
		}
		defs = append(defs, x)
	}
}

// forEachShareable calls fn on e and on every subexpression of e evaluated
// whenever e is, that could be shared: not a column or a constant.
func forEachShareable(e plan.Expr, fn func(plan.Expr)) {
	switch e.(type) {
	case *plan.InputRef, *plan.ColRef, *plan.Const:
		return
	}
	if isConstant(e) {
		return // folded at compile time
	}
	if !plan.IsVolatile(e) {
		// Two calls of RAND() are two values: an expression with a
		// volatile call is never shared, its other subexpressions may be.
		fn(e)
	}
	for _, c := range unconditionalChildren(e) {
		forEachShareable(c, fn)
	}
}

func forEachChild(e plan.Expr, fn func(plan.Expr)) {
	for _, c := range unconditionalChildren(e) {
		fn(c)
	}
}

// unconditionalChildren are the operands of e evaluated over every row e
// is: the first of AND, OR, COALESCE and IFNULL, the condition of IF and
// the first WHEN of a CASE; all operands of other expressions.
func unconditionalChildren(e plan.Expr) []plan.Expr {
	switch e := e.(type) {
	case *plan.And:
		return e.Args[:1]
	case *plan.Or:
		return e.Args[:1]
	case *plan.Case:
		return []plan.Expr{e.Whens[0].Cond}
	case *plan.Func:
		switch e.Name {
		case "coalesce", "ifnull", "if":
			return e.Args[:1]
		}
	}
	return e.Children()
}

// replaceShareable replaces the occurrences of the expression keyed key in
// e's unconditional positions by ref.
func replaceShareable(e plan.Expr, key string, ref *plan.InputRef) plan.Expr {
	switch e.(type) {
	case *plan.InputRef, *plan.ColRef, *plan.Const:
		return e
	}
	if exprKey(e) == key {
		return ref
	}
	return replaceChildren(e, func(c plan.Expr) plan.Expr { return replaceShareable(c, key, ref) })
}

// replaceChildren returns e with fn applied to its unconditional operands.
func replaceChildren(e plan.Expr, fn func(plan.Expr) plan.Expr) plan.Expr {
	uncond := unconditionalChildren(e)
	if len(uncond) == 0 {
		return e
	}
	all := e.Children()
	kids := make([]plan.Expr, len(all))
	copy(kids, all)
	for i := range uncond {
		// The unconditional operands are a prefix of the operands, except
		// for CASE, whose first WHEN condition is its first operand too.
		kids[i] = fn(kids[i])
	}
	return e.WithChildren(kids...)
}

func exprSize(e plan.Expr) int {
	n := 0
	plan.Walk(e, func(plan.Expr) bool { n++; return true })
	return n
}

// exprKey identifies an expression by its structure: operators, functions,
// column ordinals, constants with their types, and every result type.
func exprKey(e plan.Expr) string {
	var b strings.Builder
	writeKey(&b, e)
	return b.String()
}

func writeKey(b *strings.Builder, e plan.Expr) {
	switch e := e.(type) {
	case *plan.InputRef:
		fmt.Fprintf(b, "$%d", e.Ord)
		return
	case *plan.ColRef:
		fmt.Fprintf(b, "#%d", e.ID)
		return
	case *plan.Const:
		fmt.Fprintf(b, "%s:%s", plan.FormatConst(e.Val, e.Typ), e.Typ)
		return
	case *plan.Binary:
		fmt.Fprintf(b, "(%s", e.Op)
	case *plan.Unary:
		fmt.Fprintf(b, "(neg%d", e.Op)
	case *plan.And:
		b.WriteString("(and")
	case *plan.Or:
		b.WriteString("(or")
	case *plan.Not:
		b.WriteString("(not")
	case *plan.IsNull:
		fmt.Fprintf(b, "(isnull %t", e.Negated)
	case *plan.In:
		fmt.Fprintf(b, "(in %t", e.Negated)
	case *plan.Like:
		fmt.Fprintf(b, "(like %t %d", e.Negated, e.Escape)
	case *plan.Case:
		b.WriteString("(case")
	case *plan.Cast:
		fmt.Fprintf(b, "(cast %s %t", e.To, e.Implicit)
	case *plan.Func:
		fmt.Fprintf(b, "(%s", e.Name)
	default:
		fmt.Fprintf(b, "(%T", e)
	}
	for _, c := range e.Children() {
		b.WriteByte(' ')
		writeKey(b, c)
	}
	fmt.Fprintf(b, "):%s", e.Type())
}

// tempOrders lists temporaries in evaluation order: filter holds those the
// filter needs, each after the ones it reads; rest the others, likewise.
type tempOrders struct{ filter, rest []int }

func tempOrder(defs []plan.Expr, filter plan.Expr, nIn int) tempOrders {
	var o tempOrders
	placed := make([]bool, len(defs))
	var place func(k int, into *[]int)
	place = func(k int, into *[]int) {
		if placed[k] {
			return
		}
		placed[k] = true
		for _, c := range colsUsed(defs[k]) {
			if c >= nIn {
				place(c-nIn, into)
			}
		}
		*into = append(*into, k)
	}
	if filter != nil {
		for _, c := range colsUsed(filter) {
			if c >= nIn {
				place(c-nIn, &o.filter)
			}
		}
	}
	for k := range defs {
		place(k, &o.rest)
	}
	return o
}
