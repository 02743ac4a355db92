package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/planner/plan"
)

// Program is a filter and a list of projections over the same input,
// compiled together so that a subexpression they share is computed once
// per batch: it becomes a temporary column, evaluated before the
// expressions that read it, which read it as they read an input column.
// The filter and the temporaries it needs run over every row; the other
// temporaries and the projections run over the rows the filter keeps only,
// so a projection never fails on a row the filter dropped.
//
// Only subexpressions evaluated unconditionally are shared: not those in a
// CASE branch, in an AND or OR operand after the first, or in a fallback of
// COALESCE, IFNULL or IF, which run over the rows that reach them only.
// Like an Expr, a Program keeps scratch memory and is not safe for
// concurrent use.
type Program struct {
	nIn   int
	temps []temp
	// conj are the filter's conjuncts, in order (none: keep every row).
	// Each is evaluated only over the rows the ones before it kept, so a
	// cheap, selective conjunct first spares the later ones most rows.
	conj     []conjunct
	stats    []conjStats // what each conjunct did, for re-ranking (rerank.go)
	batches  int         // filtered batches since the last re-ranking look
	reorder  *Reorder    // the last re-ranking, until Reordered takes it
	probes   probes      // conjuncts measured on a whole batch (rerank_probe.go)
	fsub     *evalCtx    // the rows still selected, for conjuncts after the first
	selBuf   []int32
	predTemp int // temps[:predTemp] are the filter's, run over every row
	outs     []output
	subOrds  []int // the columns the projections read, gathered at the selected rows
	ctx, sub *evalCtx
}

type conjunct struct {
	root  node
	ords  []int // the columns it reads
	text  string
	fixed bool // it can fail on some rows: it keeps its place (rerank.go)
}

type temp struct {
	ord  int // its column ordinal: nIn + its index
	root node
	text string
}

type output struct {
	root node
	typ  types.T
	dt   arrow.DataType
	col  int // >= 0: the output is input column col, passed through
	text string
}

// CompileProgram compiles filter (nil: none) and projections for batches
// whose columns have the types input.
func CompileProgram(filter plan.Expr, projections []plan.Expr, input []types.T) (*Program, error) {
	if filter != nil && filter.Type().Kind != types.Boolean {
		return nil, fmt.Errorf("expr: filter %s is %s, not BOOLEAN", filter, filter.Type())
	}
	roots := make([]plan.Expr, 0, len(projections)+1)
	roots = append(roots, projections...)
	if filter != nil {
		roots = append(roots, filter)
	}
	defs, roots := shareSubexpressions(roots, len(input))
	if filter != nil {
		filter, roots = roots[len(roots)-1], roots[:len(roots)-1]
	}
	// Order the temporaries: the filter's first, each after those it reads.
	order := tempOrder(defs, filter, len(input))
	all := append(append([]types.T(nil), input...), make([]types.T, len(defs))...)
	for i, d := range defs {
		all[len(input)+i] = d.Type()
	}
	c := &compiler{input: all}
	p := &Program{nIn: len(input), ctx: newCtx(all), sub: newCtx(all)}
	p.ctx.batchCols, p.sub.batchCols = len(input), len(input)
	for _, k := range order.filter {
		n, err := c.compile(defs[k])
		if err != nil {
			return nil, err
		}
		p.temps = append(p.temps, temp{ord: len(input) + k, root: n, text: defs[k].String()})
	}
	p.predTemp = len(p.temps)
	for _, k := range order.rest {
		n, err := c.compile(defs[k])
		if err != nil {
			return nil, err
		}
		p.temps = append(p.temps, temp{ord: len(input) + k, root: n, text: defs[k].String()})
	}
	if filter != nil && !plan.IsTrue(filter) {
		for _, cj := range plan.Conjuncts(filter) {
			n, err := c.compile(cj)
			if err != nil {
				return nil, err
			}
			p.conj = append(p.conj, conjunct{root: n, ords: colsUsed(cj), text: cj.String(), fixed: plan.CanFail(cj)})
		}
		p.stats = make([]conjStats, len(p.conj))
		p.probes = newProbes()
		p.fsub = newCtx(all)
		p.fsub.batchCols = len(input)
	}
	seen := map[int]bool{}
	for _, k := range order.rest {
		for _, o := range colsUsed(defs[k]) {
			if o < len(input) || !inRest(order.rest, o-len(input)) {
				seen[o] = true
			}
		}
	}
	for _, e := range roots {
		n, err := c.compile(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		out := output{root: n, typ: e.Type(), dt: e.Type().Arrow(), col: -1, text: e.String()}
		if r, ok := e.(*plan.InputRef); ok && r.Ord < len(input) {
			out.col = r.Ord
		}
		p.outs = append(p.outs, out)
		for _, o := range colsUsed(e) {
			if o < len(input) || !inRest(order.rest, o-len(input)) {
				seen[o] = true
			}
		}
	}
	for o := range all {
		if seen[o] {
			p.subOrds = append(p.subOrds, o)
		}
	}
	return p, nil
}

func inRest(rest []int, k int) bool {
	for _, r := range rest {
		if r == k {
			return true
		}
	}
	return false
}

// Temps returns the number of shared subexpressions the program computes
// as temporaries.
func (p *Program) Temps() int { return len(p.temps) }

// Eval filters batch and evaluates the projections over the rows kept,
// into cols (len(cols) is the number of projections; the caller releases
// what it gets). It returns the number of rows kept and, when the filter
// dropped some, which (nil when it kept every row). A projection that is
// an input column is passed through uncopied when every row is kept.
func (p *Program) Eval(alloc memory.Allocator, batch arrow.RecordBatch, cols []arrow.Array, sel []int32) (int, []int32, error) {
	if err := p.ctx.reset(batch); err != nil {
		return 0, nil, err
	}
	if err := p.runTemps(p.ctx, p.temps[:p.predTemp]); err != nil {
		return 0, nil, err
	}
	n := p.ctx.n
	all := true
	if len(p.conj) > 0 {
		var err error
		if sel, err = p.filter(sel); err != nil {
			return 0, nil, err
		}
		if len(sel) == 0 {
			return 0, sel, nil
		}
		all = len(sel) == n
	}
	c := p.ctx
	if !all {
		if err := p.sub.subset(p.ctx, sel, p.subOrds); err != nil {
			return 0, nil, err
		}
		c = p.sub
	}
	if err := p.runTemps(c, p.temps[p.predTemp:]); err != nil {
		return 0, nil, err
	}
	for i, o := range p.outs {
		if o.col >= 0 {
			arr := batch.Column(o.col)
			if err := checkColumn(arr, o.typ); err != nil {
				releaseAll(cols[:i])
				return 0, nil, err
			}
			if all {
				arr.Retain()
				cols[i] = arr
			} else {
				taken, err := Take(alloc, arr, sel)
				if err != nil {
					releaseAll(cols[:i])
					return 0, nil, err
				}
				cols[i] = taken
			}
			continue
		}
		v, err := o.root.eval(c)
		if err != nil {
			releaseAll(cols[:i])
			return 0, nil, inExpr(o.text, err)
		}
		cols[i] = export(alloc, v, o.typ, o.dt, c.n)
	}
	if all {
		return n, nil, nil
	}
	return len(sel), sel, nil
}

// filter evaluates the conjuncts in order, each over the rows the ones
// before it kept, and returns the rows every one of them keeps.
func (p *Program) filter(sel []int32) ([]int32, error) {
	n := p.ctx.n
	adapt := len(p.conj) > 1
	if adapt && p.probes.next >= 0 && n > 0 {
		p.runProbe()
	}
	for k, cj := range p.conj {
		var start time.Time
		in := len(sel)
		if k == 0 {
			in = n
		}
		if adapt {
			start = time.Now()
		}
		if k == 0 || len(sel) == n { // every row is still in: no gathering
			v, err := cj.root.eval(p.ctx)
			if err != nil {
				return nil, inExpr("filter "+cj.text, err)
			}
			sel = selectTrue(v, n, sel[:0])
		} else {
			if err := p.fsub.subset(p.ctx, sel, cj.ords); err != nil {
				return nil, err
			}
			v, err := cj.root.eval(p.fsub)
			if err != nil {
				return nil, inExpr("filter "+cj.text, err)
			}
			p.selBuf = selectTrue(v, len(sel), p.selBuf[:0])
			for j, i := range p.selBuf {
				sel[j] = sel[i]
			}
			sel = sel[:len(p.selBuf)]
		}
		if adapt {
			p.measure(k, in, len(sel), time.Since(start))
		}
		if len(sel) == 0 {
			break
		}
	}
	if adapt {
		if p.batches++; p.batches >= rerankEvery {
			p.batches = 0
			if r := p.rerank(); r != nil {
				p.reorder = r
			}
		}
	}
	return sel, nil
}

// runTemps evaluates temporaries over c and makes them c's columns.
func (p *Program) runTemps(c *evalCtx, ts []temp) error {
	for _, t := range ts {
		v, err := t.root.eval(c)
		if err != nil {
			return inExpr(t.text, err)
		}
		c.cols[t.ord].vector = *v
		c.loaded[t.ord] = true
	}
	return nil
}

// inExpr names the expression (text) whose evaluation failed with err,
// unless err is a row error that points at the failing subexpression in the
// statement's text, which tells more.
func inExpr(text string, err error) error {
	if re, ok := err.(*RowError); ok && re.Pos.IsKnown() {
		return err
	}
	return fmt.Errorf("%s: %w", text, err)
}

func releaseAll(cols []arrow.Array) {
	for i, a := range cols {
		if a != nil {
			a.Release()
			cols[i] = nil
		}
	}
}
