package exec

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec/aggstate"
	"github.com/eddysql/eddy/planner/plan"
)

// HashAgg is the incremental hash aggregate. It consumes a changelog and
// emits the changelog of its result, which is always the aggregate of the
// integral of its input so far. After each batch it emits, for every group
// the batch touched: +I for a group that appeared, -D (the previous row) for
// a group that lost its last row, -U/+U for a group whose result changed,
// and nothing for a group whose result did not change. A global aggregate
// (no group keys) always has exactly one row: it is inserted before any
// other output (at the latest on the first control message) and afterwards
// only updated.
//
// Groups live in slots: a group table maps keys to dense slot numbers,
// freed slots are reused, and each aggregate keeps its state in columns
// indexed by slot. A batch costs time in proportion to its rows and the
// groups it touches, never to the number of groups held.
type HashAgg struct {
	cfg HashAggConfig

	env         *Env
	schema      *arrow.Schema
	inputIDs    []arrow.Type // the Arrow type of each input column
	keys        *aggGroupKeys
	aggs        []aggState
	args        []*aggArgCol // argument columns, one per distinct input ordinal
	aggArg      []int        // per aggregate: its index in args, or -1
	groups      []aggGroup   // by slot
	epoch       uint32       // numbers the batches, for aggGroup.epoch
	initialSent bool         // a global aggregate emitted its row
	sink        int64        // keeps the touching loads (touchGroups, aggState.touch) alive
	builders    []array.Builder

	// Scratch reused across batches.
	weights          []int64
	slots            []int32
	touched          []int32
	oldRows          []int64
	firstRow         []int32 // by touched group: the first row of the batch in it
	changed          []bool
	keyVecs          []aggVec
	oldVecs, newVecs []aggVec
	outRows          []aggOutRow
	ops              []Op
}

var _ Operator = (*HashAgg)(nil)

// aggGroup is the per-slot header of a group: its row count (the sum of the
// weights of its rows; the group exists while it is positive) and the
// number of the last batch that touched it. Both are read together for
// every row, so they share a cache line.
type aggGroup struct {
	rows  int64
	epoch uint32
}

// NewHashAgg returns a hash aggregate configured by cfg. The configuration is
// checked by Open.
func NewHashAgg(cfg HashAggConfig) *HashAgg {
	return &HashAgg{cfg: cfg}
}

// Schema returns the output schema (group columns, then aggregates); nil
// before Open.
func (h *HashAgg) Schema() *arrow.Schema { return h.schema }

// Open checks the configuration and creates empty state.
func (h *HashAgg) Open(_ context.Context, env *Env) error {
	if err := h.Close(); err != nil {
		return err
	}
	cfg := &h.cfg
	schema, err := cfg.schema()
	if err != nil {
		return err
	}
	kinds := make([]aggKind, len(cfg.GroupKeys))
	h.keyVecs = make([]aggVec, len(cfg.GroupKeys))
	for i, ord := range cfg.GroupKeys {
		kinds[i], _ = aggKindOf(cfg.Input[ord])
		h.keyVecs[i].kind = kinds[i]
	}
	h.aggs = make([]aggState, len(cfg.Aggs))
	h.aggArg = make([]int, len(cfg.Aggs))
	h.oldVecs = make([]aggVec, len(cfg.Aggs))
	h.newVecs = make([]aggVec, len(cfg.Aggs))
	h.args = nil
	for i, a := range cfg.Aggs {
		st, err := newAggState(a, cfg.AppendOnly, &h.groups, len(cfg.Input))
		if err != nil {
			return fmt.Errorf("aggregate %d (%s): %w", i, a.Func, err)
		}
		h.aggs[i] = st
		k, _ := aggKindOf(a.Type)
		h.oldVecs[i].kind, h.newVecs[i].kind = k, k
		h.aggArg[i] = h.argIndex(a)
	}
	h.env = env
	h.schema = schema
	h.inputIDs = make([]arrow.Type, len(cfg.Input))
	for i, t := range cfg.Input {
		h.inputIDs[i] = t.Arrow().ID()
	}
	h.keys = newAggGroupKeys(cfg.GroupKeys, kinds)
	h.groups, h.epoch, h.initialSent = nil, 0, false
	h.growSlots()
	h.builders = make([]array.Builder, len(schema.Fields()))
	for i, f := range schema.Fields() {
		h.builders[i] = array.NewBuilder(env.Alloc, f.Type)
	}
	h.updateStateMetrics()
	return nil
}

// argIndex returns the index in h.args of a's argument column, adding it
// (with decimal keys if a needs them).
func (h *HashAgg) argIndex(a AggSpec) int {
	if a.Arg < 0 || a.Func == plan.AggCountStar {
		return -1
	}
	for i, c := range h.args {
		if c.ord == a.Arg {
			c.keys = c.keys || aggNeedsKeys(a)
			return i
		}
	}
	k, _ := aggKindOf(h.cfg.Input[a.Arg])
	h.args = append(h.args, &aggArgCol{ord: a.Arg, kind: k, keys: aggNeedsKeys(a)})
	return len(h.args) - 1
}

// Process applies a batch of changes and emits the resulting changes. An
// error (a retraction of a row never inserted, an overflow) leaves the state
// undefined: the query must stop.
func (h *HashAgg) Process(ctx context.Context, in int, c Chunk, out Emitter) error {
	if h.keys == nil {
		return errors.New("hash aggregate: Process before Open")
	}
	if in != 0 {
		return fmt.Errorf("hash aggregate: no input %d", in)
	}
	n := c.NumRows()
	m := h.env.Metrics
	m.BatchesIn.Add(1)
	m.RowsIn.Add(int64(n))
	if n == 0 {
		return h.sendInitial(ctx, out)
	}
	if err := h.checkChunk(c); err != nil {
		return err
	}
	err := h.apply(c)
	if err == nil {
		err = h.emitChanges(ctx, out)
	}
	h.releaseBatch()
	h.updateStateMetrics()
	return err
}

// checkChunk checks that c has the configured columns (by physical type) and
// one op per row, so that the typed loops can trust the data.
func (h *HashAgg) checkChunk(c Chunk) error {
	if got := int(c.Batch.NumCols()); got != len(h.cfg.Input) {
		return fmt.Errorf("hash aggregate: batch has %d columns, want %d", got, len(h.cfg.Input))
	}
	if c.Ops != nil && len(c.Ops) != c.NumRows() {
		return fmt.Errorf("hash aggregate: chunk has %d rows but %d ops", c.NumRows(), len(c.Ops))
	}
	for i, want := range h.inputIDs {
		if got := c.Batch.Column(i).DataType().ID(); got != want {
			return fmt.Errorf("hash aggregate: column %d is %s, want %s", i, c.Batch.Column(i).DataType(), h.cfg.Input[i])
		}
	}
	return nil
}

// OnControl emits a global aggregate's initial row if it has not been
// emitted yet. The operator buffers nothing between batches, so there is
// nothing else to flush.
func (h *HashAgg) OnControl(ctx context.Context, _ Control, out Emitter) error {
	if h.keys == nil {
		return errors.New("hash aggregate: OnControl before Open")
	}
	return h.sendInitial(ctx, out)
}

// Close releases the output builders and drops the state. It is safe
// without Open and idempotent.
func (h *HashAgg) Close() error {
	for _, b := range h.builders {
		b.Release()
	}
	h.builders = nil
	h.keys, h.aggs, h.args = nil, nil, nil
	h.groups = nil
	return nil
}

// apply integrates the batch into the state, recording in h.touched the
// groups it touched (in first-touch order), their row counts before the
// batch in h.oldRows and their results before the batch in h.oldVecs.
func (h *HashAgg) apply(c Chunk) error {
	n := c.NumRows()
	h.weights = aggResize(h.weights, n)
	for i := range h.weights {
		h.weights[i] = c.Op(i).Weight()
	}
	h.slots = aggResize(h.slots, n)
	if err := h.keys.resolve(c.Batch, h.slots); err != nil {
		return err
	}
	h.growSlots()

	h.epoch++
	if h.epoch == 0 { // wrapped around: forget every old epoch
		for i := range h.groups {
			h.groups[i].epoch = 0
		}
		h.epoch = 1
	}
	h.touched, h.oldRows, h.firstRow = h.touched[:0], h.oldRows[:0], h.firstRow[:0]
	h.sink += h.touchGroups()
	for i, s := range h.slots {
		if g := &h.groups[s]; g.epoch != h.epoch {
			g.epoch = h.epoch
			h.touched = append(h.touched, s)
			h.oldRows = append(h.oldRows, g.rows)
			h.firstRow = append(h.firstRow, int32(i))
		}
	}
	for _, a := range h.aggs {
		h.sink += a.touch(h.touched)
	}
	for i, a := range h.aggs {
		h.oldVecs[i].resize(len(h.touched))
		if err := a.result(h.touched, &h.oldVecs[i]); err != nil {
			return err
		}
	}

	for i, s := range h.slots {
		g := &h.groups[s]
		if g.rows += h.weights[i]; g.rows < 0 {
			return fmt.Errorf("hash aggregate: group row count: %w", aggstate.ErrNegativeCount)
		}
	}
	for _, a := range h.args {
		if err := a.load(c.Batch.Column(a.ord), h.weights); err != nil {
			return err
		}
	}
	for i, a := range h.aggs {
		var arg *aggArgCol
		w := h.weights
		if k := h.aggArg[i]; k >= 0 {
			arg = h.args[k]
			w = arg.w
		}
		if err := a.update(h.slots, w, arg); err != nil {
			return fmt.Errorf("hash aggregate: %w", err)
		}
	}
	return nil
}

// touchGroups reads the header of every row's group, so that the cache
// misses of a large state overlap (see aggstate's intTable.touch), and
// returns a value depending on them.
func (h *HashAgg) touchGroups() int64 {
	var sum int64
	for _, s := range h.slots {
		sum += h.groups[s].rows
	}
	return sum
}

// growSlots makes every per-slot column as long as the group table needs.
func (h *HashAgg) growSlots() {
	n := h.keys.high()
	if n <= len(h.groups) {
		return
	}
	h.groups = aggGrow(h.groups, n)
	for _, a := range h.aggs {
		a.grow(n)
	}
}

// releaseBatch drops the references the scratch holds into the batch.
func (h *HashAgg) releaseBatch() {
	h.keys.releaseBatch()
	for _, a := range h.args {
		a.release()
	}
}

// updateStateMetrics publishes the group count and the state size estimate.
func (h *HashAgg) updateStateMetrics() {
	m := h.env.Metrics
	m.StateKeys.Store(int64(h.keys.live()))
	bytes := h.keys.stateBytes() + int64(len(h.groups))*int64(unsafe.Sizeof(aggGroup{}))
	for _, a := range h.aggs {
		bytes += a.stateBytes()
	}
	m.StateBytes.Store(bytes)
}
