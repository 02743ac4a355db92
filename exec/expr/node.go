package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// node is a compiled expression. eval returns the node's value for every
// row of c; the vector stays valid until the node is evaluated again.
type node interface {
	eval(c *evalCtx) (*vector, error)
}

// evalCtx is the batch a node is evaluated over: n rows and the input
// columns by ordinal, loaded from an Arrow record on first use or taken from
// an enclosing context (CASE branches evaluate on subsets of the rows).
type evalCtx struct {
	n     int
	input []types.T
	// batchCols is how many of the input columns come from the batch (the
	// others are a Program's temporaries).
	batchCols int
	rec       arrow.RecordBatch
	cols      []result
	loaded    []bool
}

func newCtx(input []types.T) *evalCtx {
	return &evalCtx{input: input, batchCols: len(input), cols: make([]result, len(input)), loaded: make([]bool, len(input))}
}

// reset points c at rec.
func (c *evalCtx) reset(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) < c.batchCols {
		return fmt.Errorf("expr: batch has %d columns, expression reads %d", rec.NumCols(), c.batchCols)
	}
	c.n, c.rec = int(rec.NumRows()), rec
	clear(c.loaded)
	return nil
}

// col returns input column ord.
func (c *evalCtx) col(ord int) (*vector, error) {
	if ord < 0 || ord >= len(c.cols) {
		// A context without columns (constant folding's) reached by a
		// column reference: an error, not a panic, should one slip by.
		return nil, fmt.Errorf("expr: column %d not loaded (%d columns)", ord, len(c.cols))
	}
	r := &c.cols[ord]
	if !c.loaded[ord] {
		if c.rec == nil || ord >= c.batchCols {
			return nil, fmt.Errorf("expr: column %d not loaded", ord)
		}
		if err := load(&r.vector, c.rec.Column(ord), c.input[ord], &r.buf); err != nil {
			return nil, err
		}
		c.loaded[ord] = true
	}
	return &r.vector, nil
}

// subset loads into c the rows sel of parent's columns ords: c becomes the
// batch of those rows.
func (c *evalCtx) subset(parent *evalCtx, sel []int32, ords []int) error {
	c.n, c.rec = len(sel), nil
	for _, o := range ords {
		v, err := parent.col(o)
		if err != nil {
			return err
		}
		takeVec(&c.cols[o], v, c.input[o].Physical(), sel)
		c.loaded[o] = true
	}
	return nil
}

// inputRef reads an input column.
type inputRef struct{ ord int }

func (r *inputRef) eval(c *evalCtx) (*vector, error) { return c.col(r.ord) }

// constNode is a literal or a folded constant subtree.
type constNode struct {
	v   vector
	t   types.T
	val types.Datum
}

func (k *constNode) eval(*evalCtx) (*vector, error) { return &k.v, nil }

// newConst returns a constant node holding d of type t.
func newConst(d types.Datum, t types.T) *constNode {
	k := &constNode{t: t, val: d}
	if d.Null {
		k.v = nullVector
		return k
	}
	k.v = vector{konst: true}
	switch t.Physical() {
	case types.PhysBool:
		k.v.b = []bool{d.Bool()}
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		k.v.i64 = []int64{d.I}
	case types.PhysDate32:
		k.v.i32 = []int32{int32(d.I)}
	case types.PhysFloat64:
		k.v.f64 = []float64{d.F}
	case types.PhysDecimal:
		k.v.dec = []decimal128.Num{d.D}
	case types.PhysString:
		k.v.offs, k.v.data = []int32{0, int32(len(d.S))}, []byte(d.S)
	case types.PhysNull:
		k.v = nullVector
	}
	return k
}

// datumAt returns row i of v, of type t.
func datumAt(v *vector, i int, t types.T) types.Datum {
	if !v.isValid(i) {
		return types.NullDatum
	}
	switch t.Physical() {
	case types.PhysBool:
		return types.BoolDatum(v.boolAt(i))
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		return types.IntDatum(v.int64At(i))
	case types.PhysDate32:
		return types.IntDatum(int64(v.int32At(i)))
	case types.PhysFloat64:
		return types.FloatDatum(v.float64At(i))
	case types.PhysDecimal:
		return types.DecimalDatum(v.decAt(i))
	case types.PhysString:
		return types.StringDatum(string([]byte(v.str(i))))
	}
	return types.NullDatum
}

// lazyConst is a constant subtree whose evaluation failed at compile time
// (say CAST('x' AS INT)). It is evaluated, and fails, only when a batch
// has rows for it, so that a CASE branch no row takes does not fail.
type lazyConst struct {
	inner node
	one   *evalCtx
	empty vector
}

func (l *lazyConst) eval(c *evalCtx) (*vector, error) {
	if c.n == 0 {
		l.empty = nullVector
		return &l.empty, nil
	}
	v, err := l.inner.eval(l.one)
	if err != nil {
		return nil, err
	}
	out := *v
	out.konst = true
	l.empty = out
	return &l.empty, nil
}

// kernel computes a function of its arguments' vectors for n rows into out.
// For a strict kernel, out's validity is already the AND of the arguments'
// and no argument is the constant NULL; the kernel may add NULLs.
type kernel func(in []*vector, n int, out *result) error

// fnNode applies a kernel to the values of its argument nodes.
type fnNode struct {
	args   []node
	in     []*vector
	kern   kernel
	strict bool     // NULL when any argument is NULL
	pos    plan.Pos // of the expression, for the kernel's row errors
	out    result
}

func newFn(kern kernel, strict bool, args ...node) *fnNode {
	return &fnNode{args: args, in: make([]*vector, len(args)), kern: kern, strict: strict}
}

func (f *fnNode) eval(c *evalCtx) (*vector, error) {
	for i, a := range f.args {
		v, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		f.in[i] = v
	}
	n := c.n
	if n == 0 {
		// No rows: nothing to compute, and nothing may fail (a constant
		// argument would otherwise be computed once, for no row).
		f.out.vector = emptyVector
		return &f.out.vector, nil
	}
	konst := allKonst(f.in)
	if konst {
		n = 1 // every argument is one value: compute it once
	}
	if f.strict && anyNullConst(f.in) {
		return f.out.nullConst(), nil
	}
	f.out.reset()
	if f.strict {
		f.out.andValid(n, f.in...)
	}
	if err := f.kern(f.in, n, &f.out); err != nil {
		return nil, atPos(err, f.pos)
	}
	f.out.konst = konst
	return &f.out.vector, nil
}
