package sessionwin

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/aggstate"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/planner/plan"
)

// ErrRetraction is returned by Agg for an input row that is not an insert.
// The planner only builds SESSION windows over append-only inputs; this is
// the runtime check of that promise.
var ErrRetraction = errors.New("SESSION windows need an append-only input")

// Config configures an Agg.
type Config struct {
	// Input are the input column types.
	Input []types.T
	// GroupKeys are the input ordinals of the GROUP BY columns other than
	// window_start and window_end; empty when sessions span all rows.
	GroupKeys []int
	// TimeCol is the ordinal of the event-time column (TIMESTAMP).
	TimeCol int
	// Gap is the session gap in ms: rows less than Gap apart share a session.
	Gap  int64
	Aggs []accum.Spec
	// Names are the output column names: the group keys, window_start,
	// window_end, then one per aggregate.
	Names []string
	// EmitOnClose emits each session once, when the watermark passes its
	// end, instead of its running result.
	EmitOnClose bool
}

// Agg is a GROUP BY over SESSION windows: per group key, rows whose
// consecutive event times are less than Gap apart form a session, whose
// window_start is its first row's time and window_end its last row's
// time plus Gap. It aggregates each session itself, as sessions mean nothing
// without aggregation. Its output is the group key columns, window_start,
// window_end (of the time column's type) and the aggregates.
//
// Rows arrive in any order within the watermark's delay, so a row may start
// a session, fall inside one, extend one at either end, or bridge two or
// more, which then merge into one. Each key keeps its open sessions ordered
// and disjoint; a session's aggregates are mergeable accumulators (see
// accum.Merger), so a merge folds the absorbed sessions' accumulators into the
// survivor's.
//
// In running mode (EmitOnClose false) the output is, after every chunk, a
// changelog whose integral is exactly the current sessions: +I for a new
// session, -D for each session absorbed by a merge, -U/+U for a session
// whose bounds or values changed (deletes come first). A session is final
// once the watermark reaches its window_end (no row at or after the
// watermark can reach it); the operator then forgets it. With EmitOnClose
// each session is emitted once, +I, when it becomes final, in OnControl
// before the watermark passes on. End of input makes every session final.
// Either way a final session's state is freed.
//
// The source drops rows behind the watermark. A row that gets here anyway
// and falls within Gap of a session that was already final cannot join it
// (its state is gone): it opens a new session, which may then overlap the
// final one in the output. A row with a NULL time belongs to no session: it
// is dropped and counted (Dropped). The input must be append-only: a
// retraction fails with ErrRetraction.
//
// The state gauges of the operator's metrics count open sessions
// (StateKeys) and estimate their memory (StateBytes).
//
// Agg is checkpointable (exec.Stateful): see checkpoint.go for its
// entries.
type Agg struct {
	cfg      Config
	schema   *arrow.Schema
	inputIDs []arrow.Type // the Arrow type of each input column
	dropped  atomic.Int64

	env      *exec.Env
	aggs     []accum.Accumulator
	mergers  []accum.Merger // the accumulators, as mergers
	args     accum.Args
	arena    *aggstate.Arena // by slot: the session's row count, then the accumulators' words
	groups   map[string]*keyGroup
	slots    aggstate.Slots
	heap     closeHeap
	pool     []*session // sessions to reuse
	seq      uint64     // numbers sessions in creation order
	epoch    uint64     // numbers chunks, for session.epoch
	keyBytes int64      // memory of the groups' keys
	builders []array.Builder
	delta    delta // changes since the last snapshot (checkpoint.go)

	scratch
}

var (
	_ exec.Operator         = (*Agg)(nil)
	_ exec.Stateful         = (*Agg)(nil)
	_ exec.FiniteInputState = (*Agg)(nil)
)

// NewAgg checks cfg and returns the operator.
func NewAgg(cfg Config) (*Agg, error) {
	w := &Agg{cfg: cfg}
	if err := w.check(); err != nil {
		return nil, err
	}
	return w, nil
}

// check validates the configuration and builds the output schema.
func (w *Agg) check() error {
	cfg := &w.cfg
	nk := len(cfg.GroupKeys)
	if len(cfg.Names) != nk+2+len(cfg.Aggs) {
		return fmt.Errorf("SESSION: %d names for %d group keys, the window bounds and %d aggregates",
			len(cfg.Names), nk, len(cfg.Aggs))
	}
	if cfg.TimeCol < 0 || cfg.TimeCol >= len(cfg.Input) {
		return fmt.Errorf("SESSION: time column %d out of range", cfg.TimeCol)
	}
	tt := cfg.Input[cfg.TimeCol]
	if tt.Physical() != types.PhysTimestamp {
		return fmt.Errorf("SESSION: the time column is %s, not TIMESTAMP", tt)
	}
	if cfg.Gap <= 0 {
		return fmt.Errorf("SESSION: gap %d ms is not positive", cfg.Gap)
	}
	fields := make([]arrow.Field, 0, len(cfg.Names))
	w.inputIDs = opcheck.IDs(cfg.Input)
	for i, ord := range cfg.GroupKeys {
		if ord < 0 || ord >= len(cfg.Input) {
			return fmt.Errorf("SESSION: group key ordinal %d out of range", ord)
		}
		if cfg.Input[ord].Physical() == types.PhysNull {
			return fmt.Errorf("SESSION: cannot group by a column of type %s: %w", cfg.Input[ord], accum.ErrNotSupported)
		}
		fields = append(fields, types.Field(cfg.Names[i], cfg.Input[ord], true))
	}
	fields = append(fields, types.Field(cfg.Names[nk], tt, false), types.Field(cfg.Names[nk+1], tt, false))
	if _, _, _, err := w.newAccumulators(); err != nil {
		return err
	}
	for i, a := range cfg.Aggs {
		fields = append(fields, types.Field(cfg.Names[nk+2+i], a.Type, plan.AggNullable(a.Func)))
	}
	w.schema = arrow.NewSchema(fields, nil)
	return nil
}

// The words of a session's arena row before its accumulators'.
const (
	rowsWord = iota // the session's row count
	headerWords
)

// newAccumulators returns the accumulators of the aggregates, which must
// merge, and their arena. The input is append-only, and DISTINCT is
// supported; APPROX_COUNT_DISTINCT is not (a sketch of a session would
// have to merge, and the planner refuses it).
func (w *Agg) newAccumulators() ([]accum.Accumulator, []accum.Merger, *aggstate.Arena, error) {
	cfg := &w.cfg
	accs, arena, err := accum.NewAll(cfg.Aggs, len(cfg.Input), accum.Features{Distinct: true}, accum.Options{AppendOnly: true}, headerWords)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("SESSION: %w", err)
	}
	ms := make([]accum.Merger, len(accs))
	for i, a := range accs {
		m, ok := a.(accum.Merger)
		if !ok {
			return nil, nil, nil, fmt.Errorf("SESSION: aggregate %d: %s: %w", i, cfg.Aggs[i].Func, accum.ErrNotSupported)
		}
		ms[i] = m
	}
	return accs, ms, arena, nil
}

// Schema returns the output schema.
func (w *Agg) Schema() *arrow.Schema { return w.schema }

// Dropped returns the number of rows dropped so far for their NULL event
// time. It may be called from any goroutine.
func (w *Agg) Dropped() int64 { return w.dropped.Load() }

// Open creates empty state.
func (w *Agg) Open(_ context.Context, env *exec.Env) error {
	if err := w.Close(); err != nil {
		return err
	}
	var err error
	if w.aggs, w.mergers, w.arena, err = w.newAccumulators(); err != nil {
		return err
	}
	w.args = accum.NewArgs(w.cfg.Aggs)
	w.scratch = scratch{}
	w.oldVecs, w.newVecs = accum.Results(w.cfg.Aggs), accum.Results(w.cfg.Aggs)
	w.env = env
	w.groups = make(map[string]*keyGroup)
	w.slots = aggstate.Slots{}
	w.heap, w.pool, w.seq, w.epoch, w.keyBytes = nil, nil, 0, 0, 0
	w.delta = delta{}
	w.builders = arrays.Builders(env.Alloc, w.schema)
	w.updateStateMetrics()
	return nil
}

// Process assigns the rows of c to sessions and, in running mode, emits the
// changes of the sessions it touched. An error (a retraction, an overflow)
// leaves the state undefined: the query must stop.
func (w *Agg) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk("SESSION", w.groups != nil, in, c, w.inputIDs, w.cfg.Input); empty || err != nil {
		return err
	}
	for _, op := range c.Ops {
		if op != exec.Insert {
			return fmt.Errorf("SESSION: input row with op %s: %w", op, ErrRetraction)
		}
	}
	times := c.Batch.Column(w.cfg.TimeCol).(*array.Timestamp)
	err := w.place(c.Batch, times)
	if err == nil {
		err = w.apply(c.Batch)
	}
	if err == nil && !w.cfg.EmitOnClose {
		err = w.emitChanges(ctx, out)
	}
	w.settle()
	w.updateStateMetrics()
	return err
}

// OnControl closes the sessions a watermark makes final (all of them at end
// of input), emitting them first in EmitOnClose mode.
func (w *Agg) OnControl(ctx context.Context, m exec.Control, out exec.Emitter) error {
	if w.groups == nil {
		return errors.New("SESSION: OnControl before Open")
	}
	var err error
	switch m.Kind {
	case exec.Watermark:
		err = w.closeSessions(ctx, m.Watermark, false, out)
	case exec.EndOfInput:
		err = w.closeSessions(ctx, 0, true, out)
	}
	w.updateStateMetrics()
	return err
}

// Close releases the output builders and drops the state. It is safe
// without Open and idempotent.
func (w *Agg) Close() error {
	arrays.ReleaseBuilders(w.builders)
	w.builders = nil
	w.aggs, w.mergers, w.args, w.arena = nil, nil, accum.Args{}, nil
	w.groups, w.heap, w.pool = nil, nil, nil
	w.delta = delta{}
	w.scratch = scratch{}
	return nil
}

// StateOutlivesInput implements exec.FiniteInputState: at the end of
// input every session was closed and emitted, and an empty operator
// emits nothing.
func (w *Agg) StateOutlivesInput() bool { return false }
