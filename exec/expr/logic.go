package expr

import (
	"github.com/eddysql/eddy/planner/plan"
)

// logicNode is an n-ary AND (and true) or OR with SQL's three-valued logic:
// AND is FALSE if any argument is FALSE, else NULL if any is NULL, else
// TRUE; OR dually. Arguments are evaluated over the whole batch; when a
// later argument fails on some row, the batch is evaluated again lazily,
// each argument only over the rows the earlier ones left undecided, so that
// `x <> 0 AND 10 DIV x > 1`-style guards protect the rows they exclude.
type logicNode struct {
	and  bool
	args []node
	ords [][]int // columns each argument reads
	sub  *evalCtx
	rows []int32
	out  result
	// nulls is false while the accumulator is known to hold no NULL.
	nulls bool
}

func (c *compiler) buildLogic(es []plan.Expr, and bool) (node, error) {
	args, err := c.compileAll(es)
	if err != nil {
		return nil, err
	}
	n := &logicNode{and: and, args: args, sub: newCtx(c.input)}
	for _, e := range es {
		n.ords = append(n.ords, colsUsed(e))
	}
	return n, nil
}

// decided reports whether row i of the accumulated result is already the
// dominant value (FALSE for AND, TRUE for OR).
func (l *logicNode) decided(i int) bool {
	return l.out.isValid(i) && l.out.b[i] != l.and
}

func (l *logicNode) eval(c *evalCtx) (*vector, error) {
	if err := l.start(c); err != nil {
		return nil, err
	}
	for _, a := range l.args[1:] {
		w, err := a.eval(c)
		if err != nil {
			if IsRowError(err) {
				return l.evalLazy(c)
			}
			return nil, err
		}
		l.combine(w, nil)
	}
	return &l.out.vector, nil
}

// start evaluates the first argument and initializes the accumulator from
// its values.
func (l *logicNode) start(c *evalCtx) error {
	v, err := l.args[0].eval(c)
	if err != nil {
		return err
	}
	n := c.n
	l.out.reset()
	b := l.out.bools(n)
	l.out.ownValid(n)
	l.nulls = v.valid != nil
	if v.konst {
		for i := range b {
			b[i] = v.b[0]
		}
		if !v.isValid(0) {
			clear(l.out.valid)
		}
		return nil
	}
	copy(b, v.b[:n])
	if v.valid != nil {
		copy(l.out.valid, v.valid[:bitmapBytes(n)])
	}
	return nil
}

// combine folds w into the accumulator; w holds rows[j] at j, or every row
// when rows is nil.
func (l *logicNode) combine(w *vector, rows []int32) {
	acc, valid := l.out.b, l.out.valid
	if rows == nil && w.valid == nil && !w.konst && !l.nulls {
		// Fastest path: no NULLs anywhere.
		wb := w.b[:len(acc)]
		if l.and {
			for i, x := range wb {
				acc[i] = boolToByte(acc[i])&boolToByte(x) != 0
			}
		} else {
			for i, x := range wb {
				acc[i] = boolToByte(acc[i])|boolToByte(x) != 0
			}
		}
		return
	}
	l.nulls = true
	if rows == nil && w.valid == nil && !w.konst {
		// Fast path: no NULLs in w.
		wb := w.b[:len(acc)]
		for i, x := range wb {
			if l.and {
				acc[i] = acc[i] && x
				if !x {
					setBitTo(valid, i, true)
				}
			} else {
				acc[i] = acc[i] || x
				if x {
					setBitTo(valid, i, true)
				}
			}
		}
		return
	}
	apply := func(i, j int) {
		wv, x := w.isValid(j), w.boolAt(j)
		if wv && x != l.and { // w dominates
			acc[i] = x
			setBitTo(valid, i, true)
			return
		}
		if l.decided(i) {
			return
		}
		if !wv {
			setBitTo(valid, i, false)
		}
		// acc is TRUE (AND) / FALSE (OR) or NULL, and w is neutral: keep acc.
	}
	if rows == nil {
		for i := range acc {
			apply(i, i)
		}
		return
	}
	for j, i := range rows {
		apply(int(i), j)
	}
}

// evalLazy evaluates every argument after the first only over the rows
// still undecided.
func (l *logicNode) evalLazy(c *evalCtx) (*vector, error) {
	if err := l.start(c); err != nil {
		return nil, err
	}
	for k, a := range l.args[1:] {
		l.rows = l.rows[:0]
		for i := 0; i < c.n; i++ {
			if !l.decided(i) {
				l.rows = append(l.rows, int32(i))
			}
		}
		if len(l.rows) == 0 {
			break
		}
		if err := l.sub.subset(c, l.rows, l.ords[k+1]); err != nil {
			return nil, err
		}
		w, err := a.eval(l.sub)
		if err != nil {
			return nil, err
		}
		l.combine(w, l.rows)
	}
	return &l.out.vector, nil
}

// buildNot compiles three-valued negation.
func (c *compiler) buildNot(e *plan.Not) (node, error) {
	arg, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	return newFn(func(in []*vector, n int, out *result) error {
		r, xs := out.bools(n), in[0].b[:n]
		for i, x := range xs {
			r[i] = !x
		}
		return nil
	}, true, arg), nil
}

// buildIsNull compiles IS [NOT] NULL, which is never NULL.
func (c *compiler) buildIsNull(e *plan.IsNull) (node, error) {
	arg, err := c.compile(e.Arg)
	if err != nil {
		return nil, err
	}
	want := !e.Negated // the result for a NULL row
	return newFn(func(in []*vector, n int, out *result) error {
		r, v := out.bools(n), in[0]
		if v.valid == nil {
			for i := range r {
				r[i] = !want
			}
			return nil
		}
		for i := range r {
			r[i] = v.isValid(i) != want
		}
		return nil
	}, false, arg), nil
}
