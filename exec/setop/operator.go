package setop

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Operator maintains a set operation over its two inputs; see the package
// documentation. Its output is a changelog of inserts and deletes.
type Operator struct {
	cfg    Config
	env    *exec.Env
	ids    []arrow.Type
	schema *arrow.Schema
	open   bool

	tab table
	d   delta

	// Per-batch scratch.
	hashes []uint64
	sel    []int32
	ops    []exec.Op
	key    []byte
}

var (
	_ exec.Operator         = (*Operator)(nil)
	_ exec.Stateful         = (*Operator)(nil)
	_ exec.FiniteInputState = (*Operator)(nil)
)

// New checks cfg and returns an operator; Open creates its state.
func New(cfg Config) (*Operator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(cfg.Types))
	for i, t := range cfg.Types {
		fields[i] = arrow.Field{Name: cfg.Names[i], Type: t.Arrow(), Nullable: true}
	}
	return &Operator{cfg: cfg, ids: opcheck.IDs(cfg.Types), schema: arrow.NewSchema(fields, nil)}, nil
}

// Open implements exec.Operator: it starts with no rows held.
func (o *Operator) Open(_ context.Context, env *exec.Env) error {
	o.Close()
	o.env, o.open = env, true
	o.updateMetrics()
	return nil
}

// Process implements exec.Operator: it applies c's rows to the counts of
// input in (0, the left; 1, the right) and emits the change of the
// multiplicity of each row's row in the result.
func (o *Operator) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if in != 0 && in != 1 {
		return fmt.Errorf("setop: no input %d", in)
	}
	empty, err := opcheck.Chunk("setop", o.open, 0, c, o.ids, o.cfg.Types)
	if empty || err != nil {
		return err
	}
	n := c.NumRows()
	cols := c.Batch.Columns()
	o.hashes = vec.Resize(o.hashes, n)
	if err := exec.HashRows(cols, o.hashes); err != nil {
		return fmt.Errorf("setop: %w", err)
	}
	o.sel, o.ops = o.sel[:0], o.ops[:0]
	kind, right := o.cfg.Kind, in == 1
	for i, h := range o.hashes {
		w := int64(1)
		if c.Ops != nil {
			w = c.Ops[i].Weight()
		}
		o.key = rowkey.Append(o.key[:0], cols, i)
		id := o.tab.find(h, o.key)
		if id < 0 {
			id = o.tab.add(h, o.key)
		}
		e := &o.tab.entries[id]
		before := kind.Mult(e.a, e.b)
		if right {
			e.b += w
		} else {
			e.a += w
		}
		d := kind.Mult(e.a, e.b) - before
		if e.a == 0 && e.b == 0 {
			if e.flags&written != 0 {
				o.d.deleted(e.hash, o.tab.key(e))
			}
			o.tab.remove(id)
		} else {
			o.d.mark(&o.tab, id)
		}
		for ; d > 0; d-- {
			o.sel, o.ops = append(o.sel, int32(i)), append(o.ops, exec.Insert)
		}
		for ; d < 0; d++ {
			o.sel, o.ops = append(o.sel, int32(i)), append(o.ops, exec.Delete)
		}
	}
	o.updateMetrics()
	if len(o.sel) == 0 {
		return nil
	}
	return o.emit(ctx, c.Batch, out)
}

// emit emits the rows of b at the positions o.sel with the ops o.ops, in
// the operator's schema.
func (o *Operator) emit(ctx context.Context, b arrow.RecordBatch, out exec.Emitter) error {
	taken, err := exec.TakeRows(o.env.Alloc, exec.Chunk{Batch: b}, o.sel)
	if err != nil {
		return fmt.Errorf("setop: %w", err)
	}
	rec := array.NewRecordBatch(o.schema, taken.Batch.Columns(), int64(len(o.sel)))
	taken.Batch.Release()
	defer rec.Release()
	return out.Emit(ctx, exec.Chunk{Batch: rec, Ops: o.ops})
}

// OnControl implements exec.Operator: nothing is buffered, so there is
// nothing to do.
func (o *Operator) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// updateMetrics sets the state gauges: the rows held and their bytes.
func (o *Operator) updateMetrics() {
	m := o.env.Metrics
	m.StateKeys.Store(int64(o.tab.idx.Len()))
	m.StateBytes.Store(o.tab.bytes() + o.d.bytes())
}

// Close implements exec.Operator: it drops the state. It is safe without
// Open and idempotent.
func (o *Operator) Close() error {
	o.open = false
	o.tab, o.d = table{}, delta{}
	o.hashes, o.sel, o.ops, o.key = nil, nil, nil, nil
	return nil
}

// StateOutlivesInput implements exec.FiniteInputState: the counts
// serve only to combine the rows still to come.
func (o *Operator) StateOutlivesInput() bool { return false }
