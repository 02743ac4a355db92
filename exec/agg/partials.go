package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/vec"
	"github.com/eddysql/eddy/planner/plan"
)

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
// accumulators of the hash aggregate, over state that lives for the batch:
// its group g is in slot g, and the state is freed when the batch's
// partials are built.
type partials struct {
	env      *exec.Env
	accs     []accum.Accumulator
	args     accum.Args
	arena    *aggstate.Arena
	builders []array.Builder

	// Scratch reused across batches.
	batch  accum.Batch
	slots  []int32 // 0, 1, 2, ...: the slots of the batch's groups
	counts []int64 // by group: its rows
	ones   []int64 // a weight of 1 per row
	vecs   []accum.Vector
	rows   []accum.OutRow // 0, 1, 2, ...: one output row per group
	out    accum.Out
}

// open creates the accumulators of ps over input.
func (p *partials) open(ps []PartialSpec, input []types.T, env *exec.Env) error {
	p.close()
	p.env = env
	specs := make([]accum.Spec, len(ps))
	for i, ps := range ps {
		s, err := ps.spec(input)
		if err != nil {
			return err
		}
		specs[i] = s
	}
	var err error
	p.accs, p.arena, err = accum.NewAll(specs, len(input), accum.Features{}, accum.Options{AppendOnly: true, Borrow: true}, 0)
	if err != nil {
		return err
	}
	p.args = accum.NewArgs(specs)
	p.vecs = accum.Results(specs)
	p.builders = make([]array.Builder, len(ps))
	for i, s := range specs {
		p.builders[i] = array.NewBuilder(env.Alloc, s.Type.Arrow())
	}
	return nil
}

// run computes the partials of batch, whose rows are in groups 0..groups-1
// as group says, and appends their columns to cols.
func (p *partials) run(batch arrow.RecordBatch, group []int32, groups int, cols []arrow.Array) ([]arrow.Array, error) {
	n := len(group)
	if len(p.slots) < groups {
		p.arena.Grow(groups)
		for _, acc := range p.accs {
			acc.Grow(groups)
		}
		for s := len(p.slots); s < groups; s++ {
			p.slots = append(p.slots, int32(s))
			p.rows = append(p.rows, accum.OutRow{J: int32(s)})
		}
	}
	for len(p.ones) < n {
		p.ones = append(p.ones, 1)
	}
	slots, ones := p.slots[:groups], p.ones[:n]
	defer p.reset(slots)
	b := &p.batch
	b.Reset(group, slots, p.arena)
	p.counts = vec.Resize(p.counts, groups)
	clear(p.counts)
	for _, g := range group {
		p.counts[g]++
	}
	if err := p.args.Load(batch, ones); err != nil {
		return cols, err
	}
	for i, acc := range p.accs {
		arg, w := p.args.Of(i, ones)
		if err := acc.Update(b, w, arg); err != nil {
			return cols, err
		}
		v := &p.vecs[i]
		v.Resize(groups)
		if err := acc.Result(b, p.counts, v); err != nil {
			return cols, err
		}
		col, err := p.out.Column(p.env.Alloc, p.builders[i], v, v, p.rows[:groups])
		if err != nil {
			return cols, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// reset frees the state of the batch's groups, in slots, and drops the
// references into the batch.
func (p *partials) reset(slots []int32) {
	for _, acc := range p.accs {
		if acc.Bytes() == 0 {
			continue // all in the arena
		}
		for _, s := range slots {
			acc.Free(s)
		}
	}
	p.arena.ClearFirst(len(slots))
	p.args.Release()
	for i := range p.vecs {
		clear(p.vecs[i].S)
	}
}

// close releases the builders and drops the state.
func (p *partials) close() {
	arrays.ReleaseBuilders(p.builders)
	p.builders, p.accs, p.args, p.arena = nil, nil, accum.Args{}, nil
}
