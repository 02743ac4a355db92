package expr

import (
	"strings"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// coalesceNode returns, per row, its first non-NULL argument. Each argument
// after the first is evaluated only over the rows still NULL (so IFNULL(x,
// 1 DIV 0)-style fallbacks run only where needed).
type coalesceNode struct {
	t     types.T
	args  []branch
	vecs  []*vector
	which []uint16
	pos   []int32
	rows  []int32
	next  []int32
	out   result
}

func buildCoalesce(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) == 0 || len(e.Args) > 1<<16 {
		return nil, notSupported("COALESCE with %d arguments", len(e.Args))
	}
	n := &coalesceNode{t: e.Typ}
	for _, a := range e.Args {
		if a.Type().Physical() != e.Typ.Physical() && a.Type().Kind != types.Null {
			return nil, notSupported("%s with argument of type %s", strings.ToUpper(e.Name), a.Type())
		}
		b, err := c.branch(a)
		if err != nil {
			return nil, err
		}
		n.args = append(n.args, b)
	}
	n.vecs = make([]*vector, len(n.args))
	return n, nil
}

func (k *coalesceNode) eval(c *evalCtx) (*vector, error) {
	v, err := k.args[0].evalOn(c, nil)
	if err != nil {
		return nil, err
	}
	if !v.hasNulls() || len(k.args) == 1 {
		return v, nil
	}
	n := c.n
	k.which, k.pos = grow(k.which, n), grow(k.pos, n)
	k.vecs[0] = v
	k.rows = k.rows[:0]
	for i := 0; i < n; i++ {
		k.which[i], k.pos[i] = 0, int32(i)
		if !v.isValid(i) {
			k.rows = append(k.rows, int32(i))
		}
	}
	for a := 1; a < len(k.args) && len(k.rows) > 0; a++ {
		w, err := k.args[a].evalOn(c, k.rows)
		if err != nil {
			return nil, err
		}
		if len(k.rows) == n && !w.hasNulls() {
			return w, nil
		}
		k.vecs[a] = w
		k.next = k.next[:0]
		for j, i := range k.rows {
			k.which[i], k.pos[i] = uint16(a), int32(j)
			if !w.isValid(j) {
				k.next = append(k.next, i)
			}
		}
		k.rows, k.next = k.next, k.rows
	}
	assemble(&k.out, k.t.Physical(), k.vecs, k.which[:n], k.pos[:n])
	return &k.out.vector, nil
}

// buildIf compiles IF(c, a, b) as CASE WHEN c THEN a ELSE b END, which
// evaluates each branch only over its rows.
func buildIf(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 3 {
		return nil, notSupported("IF with %d arguments", len(e.Args))
	}
	return c.build(&plan.Case{Whens: []plan.When{{Cond: e.Args[0], Result: e.Args[1]}}, Else: e.Args[2], Typ: e.Typ})
}

// buildNullIf compiles NULLIF(a, b): NULL when a = b, else a.
func buildNullIf(c *compiler, e *plan.Func) (node, error) {
	if len(e.Args) != 2 || e.Args[0].Type().Physical() != e.Args[1].Type().Physical() {
		return nil, notSupported("NULLIF of %d arguments", len(e.Args))
	}
	args, err := c.compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	p := e.Typ.Physical()
	eq := make([]bool, 0)
	return newFn(func(in []*vector, n int, out *result) error {
		a, b := in[0], in[1]
		eq = grow(eq, n)
		compareInto(p, plan.OpEq, a, b, eq)
		out.andValid(n, a)
		for i, same := range eq {
			if same && b.isValid(i) {
				out.setNull(i, n)
			}
		}
		copyValues(out, a, p, n)
		return nil
	}, false, args...), nil
}

// copyValues copies n values of v into out.
func copyValues(out *result, v *vector, p types.Physical, n int) {
	switch p {
	case types.PhysBool:
		fillFrom(out.bools(n), v.b, v.konst)
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		fillFrom(out.int64s(n), v.i64, v.konst)
	case types.PhysDate32:
		fillFrom(out.int32s(n), v.i32, v.konst)
	case types.PhysFloat64:
		fillFrom(out.float64s(n), v.f64, v.konst)
	case types.PhysDecimal:
		fillFrom(out.decs(n), v.dec, v.konst)
	case types.PhysString:
		out.strings(n, totalLen(v, n))
		for i := 0; i < n; i++ {
			out.appendStr(v.str(i))
		}
		out.finishStrings()
	}
}

// buildGreatest compiles GREATEST (max) or LEAST: NULL if any argument is
// NULL, as in MySQL.
func buildGreatest(greatest bool) funcBuilder {
	return strict(func(e *plan.Func) (kernel, error) {
		p := e.Typ.Physical()
		if err := argsOf(e, p); err != nil {
			return nil, err
		}
		want := -1
		if greatest {
			want = 1
		}
		var best []uint16 // per row: the argument holding its answer
		var pos []int32
		return func(in []*vector, n int, out *result) error {
			best, pos = grow(best, n), grow(pos, n)
			for i := range best {
				best[i], pos[i] = 0, int32(i)
			}
			for a := 1; a < len(in); a++ {
				x := in[a]
				for i := range best {
					if cmpAt(p, x, in[best[i]], i) == want {
						best[i] = uint16(a)
					}
				}
			}
			assemble(out, p, in, best, pos)
			out.andValid(n, in...)
			return nil
		}, nil
	})
}

// cmpAt compares row i of x and y.
func cmpAt(p types.Physical, x, y *vector, i int) int {
	switch p {
	case types.PhysBool:
		return b2i(x.boolAt(i)) - b2i(y.boolAt(i))
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return cmp3(x.int64At(i), y.int64At(i))
	case types.PhysDate32:
		return cmp3(x.int32At(i), y.int32At(i))
	case types.PhysFloat64:
		return cmp3(x.float64At(i), y.float64At(i))
	case types.PhysDecimal:
		return x.decAt(i).Cmp(y.decAt(i))
	case types.PhysString:
		return strings.Compare(x.str(i), y.str(i))
	}
	return 0
}

func cmp3[T ordered](a, b T) int {
	return b2i(a > b) - b2i(a < b)
}
