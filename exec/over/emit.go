package over

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/planner/plan"
)

// outRow is a row of the output chunk being built: the row with values
// id in the row store, with the aggregate results at vals[res:], and its op.
type outRow struct {
	id  int32
	res int32
	op  exec.Op
}

// emit builds the output chunk from o.rows — the input columns gathered
// from the row store, then the aggregate results — and emits it.
func (o *Agg) emit(ctx context.Context, out exec.Emitter) error {
	n := len(o.rows)
	if n == 0 {
		return nil
	}
	alloc := o.env.Alloc
	o.ids, o.ops = o.ids[:0], o.ops[:0]
	for _, r := range o.rows {
		o.ids = append(o.ids, r.id)
		o.ops = append(o.ops, r.op)
	}
	cols := make([]arrow.Array, 0, len(o.cfg.Input)+o.nRes)
	for j := range o.cfg.Input {
		cols = append(cols, o.store.Gather(alloc, j, o.ids))
	}
	for j := range o.cfg.Aggs {
		cols = append(cols, o.aggColumn(j))
	}
	for j := range o.cfg.Funcs {
		c, err := o.funcColumn(j)
		if err != nil {
			arrays.Release(cols)
			return err
		}
		cols = append(cols, c)
	}
	return o.emitBatch(ctx, out, cols, n)
}

// aggColumn builds the output column of aggregate j for o.rows.
func (o *Agg) aggColumn(j int) arrow.Array {
	a := o.cfg.Aggs[j]
	alloc := o.env.Alloc
	if a.Func == plan.AggMin || a.Func == plan.AggMax {
		// The extreme is a stored value: gather it by row id.
		o.ids = o.ids[:0]
		for _, r := range o.rows {
			v := o.vals[int(r.res)+j]
			id := int32(-1)
			if v.valid {
				id = int32(v.lo)
			}
			o.ids = append(o.ids, id)
		}
		return o.store.Gather(alloc, a.Arg, o.ids)
	}
	bld := array.NewBuilder(alloc, a.Type.Arrow())
	defer bld.Release()
	bld.Reserve(len(o.rows))
	switch b := bld.(type) {
	case *array.Int64Builder:
		for _, r := range o.rows {
			if v := o.vals[int(r.res)+j]; v.valid {
				b.UnsafeAppend(int64(v.lo))
			} else {
				b.AppendNull()
			}
		}
	case *array.Float64Builder:
		for _, r := range o.rows {
			if v := o.vals[int(r.res)+j]; v.valid {
				b.UnsafeAppend(math.Float64frombits(v.lo))
			} else {
				b.AppendNull()
			}
		}
	case *array.Decimal128Builder:
		for _, r := range o.rows {
			if v := o.vals[int(r.res)+j]; v.valid {
				b.UnsafeAppend(decimal128.New(v.hi, v.lo))
			} else {
				b.AppendNull()
			}
		}
	}
	return bld.NewArray()
}

// emitBatch wraps output columns into a chunk and emits it.
func (o *Agg) emitBatch(ctx context.Context, out exec.Emitter, cols []arrow.Array, n int) error {
	return arrays.Emit(ctx, out, o.schema, cols, n, o.ops)
}
