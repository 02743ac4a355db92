package agg

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/opcheck"
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
// Groups live in slots: a group table maps keys to dense slot numbers and
// freed slots are reused. A slot's fixed-width state (its row count, then
// every aggregate's accumulators: counts, sums, extremes, and the values of
// a retractable MIN/MAX over numbers while they are few) is one row of an
// arena of 8-byte words, so that touching a group costs one or two cache
// lines whatever the number of aggregates; variable-size state (larger
// multisets, those of DISTINCT, strings) is in slot-indexed columns of each
// aggregate. Nothing is a per-group object.
//
// A batch is first grouped on its own (groupKeys.group): its rows are
// numbered by distinct group, each group is looked up once, and aggregates
// fold their rows into dense per-batch accumulators before touching each
// group's state once. A batch therefore costs time in proportion to its
// rows (in cache) and the groups it touches (out of cache), never to the
// number of groups held; growing the state never copies it (see
// aggstate.Column).
type HashAgg struct {
	cfg HashConfig

	env         *exec.Env
	schema      *arrow.Schema
	inputIDs    []arrow.Type // the Arrow type of each input column
	keys        *groupKeys
	aggs        []accum.Accumulator
	args        accum.Args      // the aggregates' argument columns
	arena       *aggstate.Arena // by slot: the group header, then the aggregates' words
	initialSent bool            // a global aggregate emitted its row
	close       *closer         // when windowed: which groups close when
	closing     []int32         // scratch: the groups a watermark closes
	sink        int64           // keeps the prefetching loads (touchRows, state.touch) alive
	builders    []array.Builder
	delta       delta        // what changed since the last snapshot (state.go)
	pend        pendingSnap  // a snapshot begun and not all written (snapshot.go)
	grouper     entryGrouper // the key groups of entry keys (keygroup.go)
	ttl         *ttlState    // with a state TTL: the groups' last accesses (ttl.go)
	mb          miniBatch    // the changes held to fold several chunks' (minibatch.go)

	// Scratch reused across batches.
	weights          []int64
	lids             []int32 // by row: its local group
	batch            accum.Batch
	touched          []int32
	oldRows, newRows []int64 // by touched group: its row count before and after the batch
	firstRow         []int32 // by touched group: the first row of the batch in it
	changed          []bool
	keyVecs          []accum.Vector
	oldVecs, newVecs []accum.Vector
	outRows          []accum.OutRow
	out              accum.Out
	ops              []exec.Op
}

var (
	_ exec.Operator              = (*HashAgg)(nil)
	_ exec.Stateful              = (*HashAgg)(nil)
	_ exec.FiniteInputState      = (*HashAgg)(nil)
	_ exec.DeferredSnapshotter   = (*HashAgg)(nil)
	_ exec.BackgroundSnapshotter = (*HashAgg)(nil)
	_ exec.ProcessingTimer       = (*HashAgg)(nil)
	_ exec.OutputDeferrer        = (*HashAgg)(nil)
)

// The group header: the first words of a group's arena row.
const (
	// rowsWord is the group's row count, the sum of the weights of its
	// rows; the group exists while it is positive.
	rowsWord = iota
	headerWords
)

// NewHashAgg returns a hash aggregate configured by cfg. The configuration is
// checked by Open.
func NewHashAgg(cfg HashConfig) *HashAgg {
	return &HashAgg{cfg: cfg}
}

// Schema returns the output schema (group columns, then aggregates); nil
// before Open.
func (h *HashAgg) Schema() *arrow.Schema { return h.schema }

// Open checks the configuration and creates empty state.
func (h *HashAgg) Open(_ context.Context, env *exec.Env) error {
	if err := h.Close(); err != nil {
		return err
	}
	cfg := &h.cfg
	schema, err := cfg.schema()
	if err != nil {
		return err
	}
	kinds := make([]accum.Kind, len(cfg.GroupKeys))
	h.keyVecs = make([]accum.Vector, len(cfg.GroupKeys))
	for i, ord := range cfg.GroupKeys {
		kinds[i], _ = accum.KindOf(cfg.Input[ord])
		h.keyVecs[i].Kind = kinds[i]
	}
	h.aggs, h.arena, err = accum.NewAll(cfg.Aggs, len(cfg.Input), accum.All, accum.Options{AppendOnly: cfg.AppendOnly}, headerWords)
	if err != nil {
		return fmt.Errorf("hash aggregate: %w", err)
	}
	h.args = accum.NewArgs(cfg.Aggs)
	h.oldVecs, h.newVecs = accum.Results(cfg.Aggs), accum.Results(cfg.Aggs)
	h.env = env
	h.schema = schema
	h.inputIDs = opcheck.IDs(cfg.Input)
	h.keys = newGroupKeys(cfg.GroupKeys, kinds)
	h.grouper = newEntryGrouper(kinds, cfg.PartKeys)
	h.close = nil
	if c := cfg.Close; c != nil {
		if c.Key < 0 || c.Key >= len(cfg.GroupKeys) || kinds[c.Key] != accum.KindInt || c.Offset < 0 {
			return fmt.Errorf("hash aggregate: window close key %d (offset %d) is not an integer-like group key", c.Key, c.Offset)
		}
		h.close = newCloser(*c, cfg.GroupKeys[c.Key])
	}
	h.initialSent = false
	h.delta = delta{savedWM: noWatermark}
	h.pend = pendingSnap{}
	h.growSlots()
	if h.keys.mode == keysGlobal {
		h.delta.mark(0) // the first snapshot writes the global row, emitted by then
	}
	h.ttl = nil
	if cfg.StateTTL > 0 && cfg.Close == nil && h.keys.mode != keysGlobal {
		h.ttl = newTTLState(cfg.StateTTL, env)
	}
	h.builders = arrays.Builders(env.Alloc, schema)
	h.mb = miniBatch{on: h.canFold(), old: accum.Results(cfg.Aggs)}
	h.updateStateMetrics()
	return nil
}

// Process applies a batch of changes and emits the resulting changes, then
// updates the state gauges of its metrics (the runtime counts rows and
// batches). An error (a retraction of a row never inserted, an overflow)
// leaves the state undefined: the query must stop.
func (h *HashAgg) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	empty, err := opcheck.Chunk("hash aggregate", h.keys != nil, in, c, h.inputIDs, h.cfg.Input)
	switch {
	case err != nil:
		return err
	case empty:
		return h.sendInitial(ctx, out)
	}
	if h.ttl != nil {
		h.ttl.now = h.env.Now().UnixMilli()
		h.expire() // a group idle for the TTL is gone before this batch reaches it
	}
	err = h.apply(c)
	switch {
	case err != nil:
	case h.mb.on:
		if h.close != nil {
			h.closeNew()
		}
		err = h.hold(ctx, out)
	default:
		err = h.emitChanges(ctx, out)
	}
	h.releaseBatch()
	h.updateStateMetrics()
	return err
}

// OnControl emits a global aggregate's initial row if it has not been
// emitted yet and, in a windowed aggregate, closes the windows a
// watermark passes, or all of them at end of input (emitting them with
// EMIT ON WINDOW CLOSE). The
// operator buffers nothing else between batches.
func (h *HashAgg) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if h.keys == nil {
		return errors.New("hash aggregate: OnControl before Open")
	}
	if err := h.flushBefore(ctx, m, out); err != nil {
		return err
	}
	if h.close != nil {
		switch {
		case m.Kind == exec.Watermark && !m.Idle:
			return h.closeWindows(ctx, m.Watermark, out)
		case m.Kind == exec.EndOfInput:
			return h.closeWindows(ctx, exec.MaxWatermark, out)
		}
	}
	return h.sendInitial(ctx, out)
}

// Close releases the output builders and drops the state. It is safe
// without Open and idempotent.
func (h *HashAgg) Close() error {
	arrays.ReleaseBuilders(h.builders)
	h.builders = nil
	h.keys, h.aggs, h.args, h.arena, h.close, h.ttl = nil, nil, accum.Args{}, nil, nil, nil
	h.stopBackground()
	h.pend = pendingSnap{} // a snapshot not all written is dropped
	h.mb = miniBatch{}     // changes held are dropped with the state
	return nil
}

// StateOutlivesInput implements exec.FiniteInputState: a keyed
// aggregate's groups serve only to fold the rows still to come — at the
// end of input a windowed one closed every window — but a global
// aggregate emits its row once, which an empty one would emit again,
// and a state TTL has evictions left that time alone triggers.
func (h *HashAgg) StateOutlivesInput() bool {
	return len(h.cfg.GroupKeys) == 0 || (h.cfg.StateTTL > 0 && h.cfg.Close == nil)
}
