package basic

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/planner/plan"
)

// Calc is a fused filter + projection: rows where Filter is TRUE are kept,
// and Projections are evaluated over them. Ops pass through: a row's op
// follows the row (Calc is linear on Z-sets).
//
// The filter and the projections are compiled together into one
// expr.Program, so that a subexpression they share (MergeCalcs composes
// steps by substitution, which repeats the inner step's expressions) is
// computed once per batch. The filter is evaluated once into a selection
// vector. When it keeps every row, projections run over the batch as is,
// and a projection that is just an input column is passed through without
// a copy. Otherwise the projections run over the selected rows only, their
// columns gathered first: BenchmarkCalc measures this against evaluating
// over the whole batch and then taking, and it also means a projection
// never fails on a row the filter dropped.
type Calc struct {
	input  []types.T
	filter plan.Expr
	projs  []plan.Expr
	names  []string

	env    *exec.Env
	prog   *expr.Program
	schema *arrow.Schema
	sel    []int32 // reused selection buffer
	cols   []arrow.Array
}

var _ exec.Operator = (*Calc)(nil)

// NewCalc returns a Calc over batches whose columns have types input. A nil
// filter keeps every row; names name the output columns. Expressions are
// compiled by Open.
func NewCalc(input []types.T, filter plan.Expr, projections []plan.Expr, names []string) *Calc {
	return &Calc{input: input, filter: filter, projs: projections, names: names}
}

// Open compiles the filter and the projections.
func (c *Calc) Open(_ context.Context, env *exec.Env) error {
	if len(c.names) != len(c.projs) {
		return fmt.Errorf("calc: %d names for %d projections", len(c.names), len(c.projs))
	}
	c.env = env
	filter := c.filter
	if filter != nil && plan.IsTrue(filter) {
		filter = nil
	}
	prog, err := expr.CompileProgram(filter, c.projs, c.input)
	if err != nil {
		return fmt.Errorf("calc: %w", err)
	}
	c.prog = prog
	fields := make([]arrow.Field, len(c.projs))
	for i, p := range c.projs {
		fields[i] = types.Field(c.names[i], p.Type(), p.Nullable())
	}
	c.schema = arrow.NewSchema(fields, nil)
	c.cols = make([]arrow.Array, len(c.projs))
	return nil
}

// Process filters and projects one chunk.
func (c *Calc) Process(ctx context.Context, in int, ch exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk("calc", c.env != nil, in, ch, nil, nil); empty || err != nil {
		return err
	}
	rows, sel, err := c.prog.Eval(c.env.Alloc, ch.Batch, c.cols, c.sel[:0])
	if sel != nil {
		c.sel = sel
	}
	if n := c.prog.Probes(); n > 0 && c.env.Metrics != nil {
		// A conjunct was measured on a whole batch (expr/rerank_probe.go).
		c.env.Metrics.Counter("filter_probes").Add(int64(n))
	}
	if r := c.prog.Reordered(); r != nil && c.env.Metrics != nil {
		// The filter's conjuncts were re-ranked from what they were seen
		// to do (expr/rerank.go): EXPLAIN ANALYZE counts it and says why.
		c.env.Metrics.Counter("filter_reorders").Add(1)
		c.env.Metrics.SetNote("filter re-ranked at run time to " + strings.Join(r.Order, " AND ") + " (" + r.Reason + ")")
	}
	if err != nil {
		return fmt.Errorf("calc: %w", err)
	}
	if rows == 0 {
		return nil
	}
	rec := array.NewRecordBatch(c.schema, c.cols, int64(rows))
	c.releaseCols()
	ops := ch.Ops
	if ops != nil && sel != nil {
		ops = selectOps(ch.Ops, sel)
	}
	err = out.Emit(ctx, exec.Chunk{Batch: rec, Ops: ops})
	rec.Release()
	return err
}

// selectOps returns the ops of the selected rows in a fresh slice. An update
// is a -U row immediately followed by its +U row; when the filter keeps only
// one half, the kept half becomes what it now means: a lone -U is the row
// leaving the result (-D), a lone +U a row entering it (+I).
func selectOps(all []exec.Op, sel []int32) []exec.Op {
	ops := make([]exec.Op, len(sel))
	for j, i := range sel {
		op := all[i]
		switch op {
		case exec.UpdateBefore:
			if j+1 >= len(sel) || sel[j+1] != i+1 || all[i+1] != exec.UpdateAfter {
				op = exec.Delete
			}
		case exec.UpdateAfter:
			if j == 0 || sel[j-1] != i-1 || all[i-1] != exec.UpdateBefore {
				op = exec.Insert
			}
		}
		ops[j] = op
	}
	return ops
}

func (c *Calc) releaseCols() {
	for i, col := range c.cols {
		if col != nil {
			col.Release()
			c.cols[i] = nil
		}
	}
}

// OnControl does nothing: Calc keeps no state between chunks.
func (c *Calc) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// KeepsNoState implements exec.Stateless.
func (*Calc) KeepsNoState() {}

// Close drops the compiled expressions; Process fails afterwards. It is
// safe without Open and idempotent.
func (c *Calc) Close() error {
	c.releaseCols()
	c.env, c.prog = nil, nil
	return nil
}
