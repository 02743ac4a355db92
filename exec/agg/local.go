package agg

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/vec"
	"github.com/eddysql/eddy/planner/plan"
)

// PartialKind is what a LocalAgg computes for one aggregate.
type PartialKind uint8

// The partial aggregates: each merges into the final one by SUM (counts
// and sums) or by MIN and MAX.
const (
	PartialCountStar PartialKind = iota + 1 // rows of the group
	PartialCount                            // non-NULL values of Arg
	PartialSum                              // SUM(Arg): NULL when the group has no non-NULL value
	PartialMin
	PartialMax
)

// PartialSpec is one partial aggregate of a LocalAgg.
type PartialSpec struct {
	Kind PartialKind
	Arg  int     // input ordinal (not for PartialCountStar)
	Type types.T // the partial's type: BIGINT for counts, the sum's or the argument's
}

// LocalConfig configures a LocalAgg.
type LocalConfig struct {
	Input     []types.T
	GroupKeys []int
	Partials  []PartialSpec
	Names     []string // the group keys' names, then the partials'
}

// LocalAgg is the first phase of a two-phase aggregation: it aggregates
// each input batch by itself, per group, and emits one row of partial
// results per group the batch holds, which a hash exchange then sends to
// the final HashAgg (which SUMs counts and sums, and takes the MIN of the
// MINs and the MAX of the MAXes). It keeps nothing between batches, so
// watermarks and other control messages pass through untouched, and it
// needs an append-only input (a partial of a retraction would have to be
// subtracted). When a batch has few groups — few keys, or heavy skew — the
// exchange carries one row per group instead of one per input row.
//
// The partials are computed by the hash aggregate's accumulators, with
// the kernels they fold a batch with (accum.Partial), over the batch
// alone.
type LocalAgg struct {
	cfg    LocalConfig
	env    *exec.Env
	schema *arrow.Schema
	index  map[string]int32
	first  []int32 // per group: the batch row that opened it
	group  []int32 // per input row: its group
	keyBuf []byte
	bg     aggstate.BatchGroups // groups a single integer-like key
	intBuf []int64
	partials
}

var _ exec.Operator = (*LocalAgg)(nil)

// NewLocalAgg returns a LocalAgg.
func NewLocalAgg(cfg LocalConfig) *LocalAgg { return &LocalAgg{cfg: cfg} }

// Open implements Operator.
func (l *LocalAgg) Open(ctx context.Context, env *exec.Env) error {
	c := l.cfg
	if len(c.Names) != len(c.GroupKeys)+len(c.Partials) {
		return fmt.Errorf("local aggregate: %d names for %d columns", len(c.Names), len(c.GroupKeys)+len(c.Partials))
	}
	l.env = env
	l.index = map[string]int32{}
	fields := make([]arrow.Field, 0, len(c.Names))
	for i, k := range c.GroupKeys {
		fields = append(fields, types.Field(c.Names[i], c.Input[k], true))
	}
	for i, p := range c.Partials {
		fields = append(fields, types.Field(c.Names[len(c.GroupKeys)+i], p.Type, true))
	}
	if err := l.partials.open(c.Partials, c.Input, env); err != nil {
		return fmt.Errorf("local aggregate: %w", err)
	}
	l.schema = arrow.NewSchema(fields, nil)
	return nil
}

// Process implements Operator.
func (l *LocalAgg) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	n := c.NumRows()
	if n == 0 {
		return nil
	}
	if !c.AppendOnly() {
		return fmt.Errorf("local aggregate: a retraction reached the first phase of a two-phase aggregate planned for append-only input")
	}
	cols := c.Batch.Columns()
	keyCols := make([]arrow.Array, len(l.cfg.GroupKeys))
	for i, k := range l.cfg.GroupKeys {
		keyCols[i] = cols[k]
	}
	l.group = vec.Resize(l.group, n)
	switch {
	case len(keyCols) == 0:
		// A global aggregate: every row is in the one group.
		clear(l.group[:n])
		l.first = append(l.first[:0], 0)
	case len(keyCols) == 1 && keyCols[0].NullN() == 0 && isIntLike(keyCols[0]):
		// One integer-like key without NULLs: a cache-resident table.
		vals, buf, err := accum.IntValues(keyCols[0], l.intBuf)
		if err != nil {
			return err
		}
		l.intBuf = buf
		l.bg.Group(vals[:n], l.group[:n])
		l.first = append(l.first[:0], l.bg.First...)
	default:
		clear(l.index)
		l.first = l.first[:0]
		for i := 0; i < n; i++ {
			l.keyBuf = rowkey.Append(l.keyBuf[:0], keyCols, i)
			g, ok := l.index[string(l.keyBuf)]
			if !ok {
				g = int32(len(l.first))
				l.index[string(l.keyBuf)] = g
				l.first = append(l.first, int32(i))
			}
			l.group[i] = g
		}
	}
	groups := len(l.first)
	outCols := make([]arrow.Array, 0, len(keyCols)+len(l.accs))
	for _, kc := range keyCols {
		a, err := arrays.TakeNullable(l.env.Alloc, kc, l.first)
		if err != nil {
			arrays.Release(outCols)
			return err
		}
		outCols = append(outCols, a)
	}
	outCols, err := l.partials.run(c.Batch, l.group[:n], groups, outCols)
	if err != nil {
		arrays.Release(outCols)
		return fmt.Errorf("local aggregate: %w", err)
	}
	return arrays.Emit(ctx, out, l.schema, outCols, groups, nil)
}

// OnControl implements Operator: nothing is held between batches.
func (l *LocalAgg) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// KeepsNoState implements exec.Stateless: a LocalAgg aggregates each batch
// by itself.
func (*LocalAgg) KeepsNoState() {}

// Close implements Operator.
func (l *LocalAgg) Close() error {
	l.index = nil
	l.partials.close()
	return nil
}

func isIntLike(a arrow.Array) bool {
	switch a.(type) {
	case *array.Int64, *array.Date32, *array.Timestamp, *array.Duration:
		return true
	}
	return false
}

// partialFuncs are the aggregates that compute each partial.
var partialFuncs = map[PartialKind]plan.AggFunc{PartialCountStar: plan.AggCountStar, PartialCount: plan.AggCount,
	PartialSum: plan.AggSum, PartialMin: plan.AggMin, PartialMax: plan.AggMax}

// spec returns the aggregate that computes p over input.
func (p PartialSpec) spec(input []types.T) (accum.Spec, error) {
	f, ok := partialFuncs[p.Kind]
	if !ok {
		return accum.Spec{}, fmt.Errorf("partial kind %d: %w", p.Kind, accum.ErrNotSupported)
	}
	s := accum.Spec{Func: f, Arg: p.Arg, Type: p.Type}
	if f != plan.AggCountStar && p.Arg >= 0 && p.Arg < len(input) {
		s.ArgType = input[p.Arg]
	}
	return s, nil
}

// partials computes a LocalAgg's partials of one batch with the
// accumulators of the hash aggregate, through accum.Partial: the same
// kernels over the batch's rows alone, with no state.
type partials struct {
	env      *exec.Env
	accs     []accum.Partial
	args     accum.Args
	builders []array.Builder

	// Scratch reused across batches.
	ones []int64 // a weight of 1 per row
	vecs []accum.Vector
	out  accum.Out
}

// open creates the accumulators of ps over input.
func (p *partials) open(ps []PartialSpec, input []types.T, env *exec.Env) error {
	p.close()
	p.env = env
	specs := make([]accum.Spec, len(ps))
	p.accs = make([]accum.Partial, len(ps))
	p.builders = make([]array.Builder, len(ps))
	for i, ps := range ps {
		s, err := ps.spec(input)
		if err != nil {
			return err
		}
		acc, err := accum.New(s, len(input), accum.Features{}, accum.Options{AppendOnly: true})
		if err != nil {
			return fmt.Errorf("partial %d: %w", i, err)
		}
		part, ok := acc.(accum.Partial)
		if !ok {
			return fmt.Errorf("partial %d: %s over %s: %w", i, s.Func, s.ArgType, accum.ErrNotSupported)
		}
		specs[i], p.accs[i] = s, part
		p.builders[i] = array.NewBuilder(env.Alloc, s.Type.Arrow())
	}
	p.args = accum.NewArgs(specs)
	p.vecs = accum.Results(specs)
	return nil
}

// run computes the partials of batch, whose rows are in groups 0..groups-1
// as group says, and appends their columns to cols.
func (p *partials) run(batch arrow.RecordBatch, group []int32, groups int, cols []arrow.Array) ([]arrow.Array, error) {
	for len(p.ones) < len(group) {
		p.ones = append(p.ones, 1)
	}
	ones := p.ones[:len(group)]
	if err := p.args.Load(batch, ones, true); err != nil {
		return cols, err
	}
	defer p.args.Release()
	for i, acc := range p.accs {
		arg, w := p.args.Of(i, ones)
		v := &p.vecs[i]
		v.Resize(groups)
		err := acc.Partial(group, groups, w, arg, v)
		var col arrow.Array
		if err == nil {
			col, err = p.out.Values(p.env.Alloc, p.builders[i], v, groups)
		}
		clear(v.S) // strings point into the batch
		if err != nil {
			return cols, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// close releases the builders and drops the accumulators.
func (p *partials) close() {
	arrays.ReleaseBuilders(p.builders)
	p.builders, p.accs, p.args = nil, nil, accum.Args{}
}
