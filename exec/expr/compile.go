package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Expr is a compiled expression, ready to evaluate over batches whose
// columns have the types it was compiled for. It keeps scratch memory
// between calls, so an Expr is not safe for concurrent use: each operator
// instance compiles its own.
type Expr struct {
	root node
	typ  types.T
	dt   arrow.DataType
	ctx  *evalCtx
	sub  *evalCtx // the selected rows, for EvalSelected
	ords []int    // the input columns e reads
}

// Compile compiles e for batches whose columns have the given types. e
// refers to columns only by *plan.InputRef (a *plan.ColRef is an error:
// physical plans bind ordinals). Constant subtrees are evaluated once.
func Compile(e plan.Expr, input []types.T) (*Expr, error) {
	c := &compiler{input: input}
	root, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	return &Expr{root: root, typ: e.Type(), dt: e.Type().Arrow(), ctx: newCtx(input), sub: newCtx(input),
		ords: colsUsed(e)}, nil
}

// Type returns the type of the expression's values.
func (e *Expr) Type() types.T { return e.typ }

// Eval evaluates e over every row of batch and returns a new array of
// e.Type().Arrow() (the caller releases it). A row-level failure (a cast
// that fails, integer overflow) returns a *RowError naming the offending
// value. An expression that is just a column returns that column, retained.
func (e *Expr) Eval(alloc memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	if err := e.ctx.reset(batch); err != nil {
		return nil, err
	}
	if r, ok := e.root.(*inputRef); ok {
		col := batch.Column(r.ord)
		if err := checkColumn(col, e.typ); err != nil {
			return nil, err
		}
		col.Retain()
		return col, nil
	}
	v, err := e.root.eval(e.ctx)
	if err != nil {
		return nil, err
	}
	return export(alloc, v, e.typ, e.dt, e.ctx.n), nil
}

// EvalSelected evaluates e over the rows sel of batch, in sel's order, and
// returns a new array of len(sel) values. Only the columns e reads are
// gathered, into scratch memory, so a filter followed by a projection
// allocates nothing but the results; rows outside sel are never evaluated
// (they cannot fail). Every index must be in range.
func (e *Expr) EvalSelected(alloc memory.Allocator, batch arrow.RecordBatch, sel []int32) (arrow.Array, error) {
	if err := e.ctx.reset(batch); err != nil {
		return nil, err
	}
	if r, ok := e.root.(*inputRef); ok {
		if err := checkColumn(batch.Column(r.ord), e.typ); err != nil {
			return nil, err
		}
		return Take(alloc, batch.Column(r.ord), sel)
	}
	for _, i := range sel {
		if i < 0 || int(i) >= e.ctx.n {
			return nil, fmt.Errorf("expr: selected row %d out of range [0, %d)", i, e.ctx.n)
		}
	}
	if err := e.sub.subset(e.ctx, sel, e.ords); err != nil {
		return nil, err
	}
	v, err := e.root.eval(e.sub)
	if err != nil {
		return nil, err
	}
	return export(alloc, v, e.typ, e.dt, len(sel)), nil
}

// selector is implemented by nodes that can produce a selection vector
// directly, without materializing booleans. ok is false when the node
// declines for this batch.
type selector interface {
	selectRows(c *evalCtx, sel []int32) (out []int32, ok bool, err error)
}

// Select evaluates a predicate and appends the indices of rows where it is
// TRUE (not FALSE, not NULL) to sel[:0], returning it, so callers reuse the
// buffer.
func (e *Expr) Select(alloc memory.Allocator, batch arrow.RecordBatch, sel []int32) ([]int32, error) {
	if e.typ.Kind != types.Boolean {
		return nil, fmt.Errorf("expr: Select on a %s expression", e.typ)
	}
	if err := e.ctx.reset(batch); err != nil {
		return nil, err
	}
	if s, ok := e.root.(selector); ok {
		out, ok, err := s.selectRows(e.ctx, sel[:0])
		if err != nil || ok {
			return out, err
		}
	}
	v, err := e.root.eval(e.ctx)
	if err != nil {
		return nil, err
	}
	return selectTrue(v, e.ctx.n, sel[:0]), nil
}

// selectTrue appends to sel the rows among n where the boolean vector v is
// TRUE.
func selectTrue(v *vector, n int, sel []int32) []int32 {
	if v.konst {
		if v.validAndTrue(0) {
			for i := 0; i < n; i++ {
				sel = append(sel, int32(i))
			}
		}
		return sel
	}
	base := len(sel)
	sel = growCap(sel, base+n)[:base+n]
	k := base
	b := v.b[:n]
	if v.valid == nil {
		for i, x := range b {
			sel[k] = int32(i)
			k += int(boolToByte(x))
		}
	} else {
		for i, x := range b {
			sel[k] = int32(i)
			k += int(boolToByte(x && bitutil.BitIsSet(v.valid, i)))
		}
	}
	return sel[:k]
}

// EvalConst evaluates an expression without column references (for
// constant folding and INSERT VALUES).
func EvalConst(e plan.Expr) (types.Datum, error) {
	c := &compiler{}
	n, err := c.compile(e)
	if err != nil {
		return types.NullDatum, err
	}
	if k, ok := n.(*constNode); ok {
		return k.val, nil
	}
	v, err := n.eval(&evalCtx{n: 1})
	if err != nil {
		return types.NullDatum, err
	}
	return datumAt(v, 0, e.Type()), nil
}

// compiler turns plan expressions into nodes.
type compiler struct {
	input []types.T
}

// compile compiles e and folds it when it reads no column.
func (c *compiler) compile(e plan.Expr) (node, error) {
	n, err := c.build(e)
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*constNode); ok || !isConstant(e) {
		return n, nil
	}
	one := &evalCtx{n: 1}
	v, err := n.eval(one)
	if err != nil {
		if IsRowError(err) {
			return &lazyConst{inner: n, one: one}, nil
		}
		return nil, err
	}
	return newConst(datumAt(v, 0, e.Type()), e.Type()), nil
}

// isConstant reports whether e reads no column and calls no volatile
// function (PROCTIME(), RAND(), ...: plan.Builtin.Volatile).
func isConstant(e plan.Expr) bool {
	// Walk prunes only the children of a node whose callback returns
	// false and goes on with its siblings, so a verdict once false must
	// stay false: a later sibling (a function over constants) must not
	// set it back to true.
	konst := true
	plan.Walk(e, func(x plan.Expr) bool {
		switch x := x.(type) {
		case *plan.InputRef, *plan.ColRef:
			konst = false
		case *plan.Func:
			if plan.IsVolatile(x) {
				konst = false
			}
		}
		return konst
	})
	return konst
}

// build compiles one expression node, its children first.
func (c *compiler) build(e plan.Expr) (node, error) {
	switch e := e.(type) {
	case *plan.ColRef:
		return nil, fmt.Errorf("expr: column %s (#%d) is not bound to an input ordinal", e.Name, e.ID)
	case *plan.InputRef:
		if e.Ord < 0 || e.Ord >= len(c.input) {
			return nil, fmt.Errorf("expr: input ordinal %d out of range (%d columns)", e.Ord, len(c.input))
		}
		if got := c.input[e.Ord]; got.Physical() != e.Typ.Physical() {
			return nil, fmt.Errorf("expr: column %s has type %s, the input %s", e, e.Typ, got)
		}
		return &inputRef{ord: e.Ord}, nil
	case *plan.Const:
		return newConst(e.Val, e.Typ), nil
	case *plan.Unary:
		return at(e.Pos)(c.buildUnary(e))
	case *plan.Binary:
		if e.Op.IsComparison() {
			return c.buildCompare(e)
		}
		return at(e.Pos)(c.buildArith(e))
	case *plan.And:
		return c.buildLogic(e.Args, true)
	case *plan.Or:
		return c.buildLogic(e.Args, false)
	case *plan.Not:
		return c.buildNot(e)
	case *plan.IsNull:
		return c.buildIsNull(e)
	case *plan.In:
		return c.buildIn(e)
	case *plan.Like:
		return c.buildLike(e)
	case *plan.Case:
		return c.buildCase(e)
	case *plan.Cast:
		arg, err := c.compile(e.Arg)
		if err != nil {
			return nil, err
		}
		if e.Implicit && e.Arg.Type().Kind == types.Varchar && e.To.Physical() == types.PhysFloat64 {
			return c.buildLenientDouble(arg)
		}
		return at(e.Pos)(c.buildCast(arg, e.Arg.Type(), e.To))
	case *plan.Func:
		return at(e.Pos)(c.buildFunc(e))
	}
	return nil, notSupported("expression %T", e)
}

// at returns a function that gives a compiled node, and a row error of
// compiling it, the position pos of the expression it computes, unless they
// have one (a node shared with an argument, as an identity cast returns,
// keeps its own).
func at(pos plan.Pos) func(node, error) (node, error) {
	return func(n node, err error) (node, error) {
		if err != nil {
			return nil, atPos(err, pos)
		}
		if f, ok := n.(*fnNode); ok && !f.pos.IsKnown() {
			f.pos = pos
		}
		return n, nil
	}
}

// compileAll compiles es.
func (c *compiler) compileAll(es []plan.Expr) ([]node, error) {
	out := make([]node, len(es))
	for i, e := range es {
		n, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// compilePair compiles the two operands of a binary expression, in order.
func (c *compiler) compilePair(l, r plan.Expr) (node, node, error) {
	ln, err := c.compile(l)
	if err != nil {
		return nil, nil, err
	}
	rn, err := c.compile(r)
	if err != nil {
		return nil, nil, err
	}
	return ln, rn, nil
}

// colsUsed returns the input ordinals e reads, for loading subsets.
func colsUsed(e plan.Expr) []int {
	var ords []int
	seen := map[int]bool{}
	plan.Walk(e, func(x plan.Expr) bool {
		if r, ok := x.(*plan.InputRef); ok && !seen[r.Ord] {
			seen[r.Ord] = true
			ords = append(ords, r.Ord)
		}
		return true
	})
	return ords
}
