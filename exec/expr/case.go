package expr

import (
	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// branch is an expression evaluated over a subset of the rows, with the
// context holding that subset's columns.
type branch struct {
	n    node
	ords []int
	ctx  *evalCtx
}

func (c *compiler) branch(e plan.Expr) (branch, error) {
	n, err := c.compile(e)
	if err != nil {
		return branch{}, err
	}
	return branch{n: n, ords: colsUsed(e), ctx: newCtx(c.input)}, nil
}

// sameRepr reports whether values of t are stored as values of want are
// (an untyped NULL fits anything).
func sameRepr(t, want types.T) bool {
	return t.Kind == types.Null || t.Physical() == want.Physical()
}

// evalOn evaluates b over the rows sel of c, an ascending subset of its
// rows (all rows when sel is nil or has every row).
func (b *branch) evalOn(c *evalCtx, sel []int32) (*vector, error) {
	if sel == nil || len(sel) == c.n {
		return b.n.eval(c)
	}
	if err := b.ctx.subset(c, sel, b.ords); err != nil {
		return nil, err
	}
	return b.n.eval(b.ctx)
}

// caseNode is a searched CASE. Each condition is evaluated only over the
// rows no earlier branch took, and each result only over the rows its
// condition selected, so a branch never fails (divides, casts) on a row it
// does not produce.
type caseNode struct {
	t      types.T
	conds  []branch
	res    []branch // len(conds)+1: the last is ELSE
	vecs   []*vector
	which  []uint16 // per row: the branch whose value it takes
	pos    []int32  // per row: its index in that branch's vector
	rest   []int32
	next   []int32
	picked []int32
	out    result
}

func (c *compiler) buildCase(e *plan.Case) (node, error) {
	n := &caseNode{t: e.Typ}
	for _, w := range e.Whens {
		if !sameRepr(w.Result.Type(), e.Typ) || w.Cond.Type().Kind != types.Boolean && w.Cond.Type().Kind != types.Null {
			return nil, notSupported("CASE WHEN %s THEN %s in a %s CASE", w.Cond.Type(), w.Result.Type(), e.Typ)
		}
	}
	if !sameRepr(e.Else.Type(), e.Typ) {
		return nil, notSupported("CASE ELSE %s in a %s CASE", e.Else.Type(), e.Typ)
	}
	for _, w := range e.Whens {
		cb, err := c.branch(w.Cond)
		if err != nil {
			return nil, err
		}
		rb, err := c.branch(w.Result)
		if err != nil {
			return nil, err
		}
		n.conds, n.res = append(n.conds, cb), append(n.res, rb)
	}
	eb, err := c.branch(e.Else)
	if err != nil {
		return nil, err
	}
	n.res = append(n.res, eb)
	n.vecs = make([]*vector, len(n.res))
	if len(n.res) > 1<<16 {
		return nil, notSupported("CASE with %d branches", len(n.res))
	}
	if m := buildMask(e, n); m != nil {
		return m, nil
	}
	return n, nil
}

func (k *caseNode) eval(c *evalCtx) (*vector, error) {
	n := c.n
	k.which, k.pos = grow(k.which, n), grow(k.pos, n)
	// rest holds the rows no branch has taken yet, ascending.
	k.rest = grow(k.rest, n)
	for i := range k.rest {
		k.rest[i] = int32(i)
	}
	for bi := range k.conds {
		k.vecs[bi] = nil
		if len(k.rest) == 0 {
			continue
		}
		cv, err := k.conds[bi].evalOn(c, k.rest)
		if err != nil {
			return nil, err
		}
		// Split the undecided rows into those the condition takes and the rest.
		k.picked, k.next = k.picked[:0], k.next[:0]
		for j, i := range k.rest {
			if cv.validAndTrue(j) {
				k.picked = append(k.picked, i)
			} else {
				k.next = append(k.next, i)
			}
		}
		k.rest, k.next = k.next, k.rest
		if len(k.picked) == 0 {
			continue
		}
		rv, err := k.res[bi].evalOn(c, k.picked)
		if err != nil {
			return nil, err
		}
		k.vecs[bi] = rv
		for j, i := range k.picked {
			k.which[i], k.pos[i] = uint16(bi), int32(j)
		}
	}
	last := len(k.res) - 1
	k.vecs[last] = nil
	if len(k.rest) > 0 {
		ev, err := k.res[last].evalOn(c, k.rest)
		if err != nil {
			return nil, err
		}
		if len(k.rest) == n {
			return ev, nil // no WHEN took a row: the CASE is its ELSE
		}
		k.vecs[last] = ev
		for j, i := range k.rest {
			k.which[i], k.pos[i] = uint16(last), int32(j)
		}
	}
	assemble(&k.out, k.t.Physical(), k.vecs, k.which[:n], k.pos[:n])
	return &k.out.vector, nil
}

// assemble sets out[i] = vecs[which[i]][pos[i]] for every row i.
func assemble(out *result, p types.Physical, vecs []*vector, which []uint16, pos []int32) {
	n := len(which)
	out.reset()
	nulls := false
	for i, w := range which {
		if !vecs[w].isValid(int(pos[i])) {
			nulls = true
			break
		}
	}
	if nulls {
		out.ownValid(n)
		for i, w := range which {
			if !vecs[w].isValid(int(pos[i])) {
				setBitTo(out.valid, i, false)
			}
		}
	}
	switch p {
	case types.PhysBool:
		r := out.bools(n)
		for i, w := range which {
			r[i] = vecs[w].boolAt(int(pos[i]))
		}
	case types.PhysInt64, types.PhysTimestamp, types.PhysDuration:
		r := out.int64s(n)
		for i, w := range which {
			r[i] = vecs[w].int64At(int(pos[i]))
		}
	case types.PhysDate32:
		r := out.int32s(n)
		for i, w := range which {
			r[i] = vecs[w].int32At(int(pos[i]))
		}
	case types.PhysFloat64:
		r := out.float64s(n)
		for i, w := range which {
			r[i] = vecs[w].float64At(int(pos[i]))
		}
	case types.PhysDecimal:
		r := out.decs(n)
		for i, w := range which {
			r[i] = vecs[w].decAt(int(pos[i]))
		}
	case types.PhysString:
		size := 0
		for i, w := range which {
			size += len(vecs[w].str(int(pos[i])))
		}
		out.strings(n, size)
		for i, w := range which {
			out.appendStr(vecs[w].str(int(pos[i])))
		}
		out.finishStrings()
	case types.PhysNull:
		out.vector = nullVector
	}
}
