package over

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/accum"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/exec/internal/ordtree"
	"github.com/eddysql/eddy/exec/internal/rowstore"
	"github.com/eddysql/eddy/planner/plan"
)

// Config configures an Agg: aggregates over windows of rows, AGG(x) OVER
// (PARTITION BY Partition ORDER BY Order Frame).
type Config struct {
	// Input are the input column types.
	Input []types.T
	// Partition are the input ordinals of the PARTITION BY columns; empty
	// for one partition of every row.
	Partition []int
	// Order are the ORDER BY keys: input ordinals with their direction.
	// Empty only with FramePartition.
	Order []ordtree.SortKey
	// Frame is the frame every aggregate is computed over.
	Frame plan.Frame
	// Aggs are the aggregates: COUNT(*), COUNT, SUM, AVG, MIN and MAX, not
	// DISTINCT.
	Aggs []accum.Spec
	// Funcs are the window functions other than aggregates; their outputs
	// follow the aggregates'.
	Funcs []Func
	// Names are the output column names: the input's, the aggregates',
	// then the functions'.
	Names []string
}

// Agg is the incremental window aggregate operator. Each input row is
// output once with the aggregates over its frame: the rows of its partition
// in Order, ties broken by the remaining columns in input order (as TopN
// breaks them), that the frame covers. Its output, integrated, is always
// exactly that for the integral of its input so far (a multiset: identical
// rows count separately, each copy with its own frame).
//
// After each chunk (never within one) it emits, for every partition the
// chunk changed, the rows whose output changed: -U old / +U new for a row
// whose aggregates changed, -D for a row that left and +I for one that
// entered. A row whose frame changed but whose aggregates did not emits
// nothing. Only rows whose frame holds a changed row can change, so a
// change at rank r of a partition touches ranks r-m..r+n under ROWS
// BETWEEN n PRECEDING AND m FOLLOWING, the ranks from r (from r's first
// peer under RANGE) under the frames from the partition's start, the ranks
// up to r+n under those to its end, and every rank under the
// whole-partition frame; GROUPS frames count peer groups instead of rows
// (peers.go), RANGE frames with offsets values (rangeframe.go). The
// window functions widen that (reachOf): LAG n as ROWS n PRECEDING, LEAD
// n to ranks r-n..r, ROW_NUMBER, RANK and DENSE_RANK to the ranks from r,
// PERCENT_RANK, CUME_DIST and NTILE to every rank.
//
// State: a partition's distinct rows are held, in order, in a counted
// B+tree (ordtree.Tree) keyed by order-preserving byte strings (TopN's
// encoding, ordtree.EncodeColumn), with their copies and the id of their
// values in a rowstore.Store, so that a row's rank and the rows at a range
// of ranks are found in O(log n). A chunk costs O(log n) per changed row plus, per
// changed partition, the rows whose frames it reads: about 2n rows around
// each change for ROWS n PRECEDING (COUNT, and SUM and AVG over integers,
// from prefix sums; MIN and MAX with a sliding deque; SUM and AVG over
// doubles and decimals sum each frame, n more per output row), and the
// whole partition for the other frames, whose frames reach its start (or
// end). It never depends on the number of partitions held.
//
// Retractions re-emit exactly the values emitted before: a row's
// aggregates are computed from its frame's rows alone, in rank order, so
// recomputing them gives the same bits (a double's sum rounds the same way).
//
// Agg is checkpointable (exec.Stateful), an entry per distinct row: see
// checkpoint.go.
type Agg struct {
	cfg      Config
	env      *exec.Env
	schema   *arrow.Schema
	layout   ordtree.Layout
	inputIDs []arrow.Type // the Arrow type of each input column
	nOrder   int          // the leading fields of layout.Sort that are ORDER BY columns
	reach    reach        // what a change affects and what outputs read
	nRes     int          // results per output: the aggregates, then the functions

	store *rowstore.Store
	parts ordtree.Partitions
	// groups are, with DENSE_RANK, each partition's peer groups
	// (peers.go), summed in groupGauge; nil without DENSE_RANK.
	groups     map[*ordtree.Partition]*ordtree.Tree
	groupGauge ordtree.Gauge
	cur        *ordtree.Partition // the partition being diffed
	curBatch   arrow.RecordBatch  // and the chunk's rows
	ck         checkpoint         // the checkpoints' bookkeeping (checkpoint.go)
	pend       pendingSnap        // a snapshot written in steps (snapshot.go)

	// Scratch reused across chunks.
	pkeys, skeys [][]byte
	olens        []int32 // per input row: the length of its key's ORDER BY prefix
	deltas       []ordtree.Delta
	netter       ordtree.Netter
	ev           eval
	olds, news   []output
	sided        []sided  // the rows a partition's change removed or added
	scratchOld   []output // merge's unmatched outputs of one row
	scratchNew   []output
	vals         []result // results of the outputs in olds, news and rows
	rows         []outRow // the output chunk being built
	freed        []int32  // row ids to free once the chunk is emitted
	ids          []int32
	ops          []exec.Op
}

var (
	_ exec.Operator         = (*Agg)(nil)
	_ exec.Stateful         = (*Agg)(nil)
	_ exec.FiniteInputState = (*Agg)(nil)
)

// New checks cfg and returns a window aggregate operator; Open creates
// its state.
func New(cfg Config) (*Agg, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Agg{cfg: cfg}, nil
}

// check validates the configuration.
func (cfg *Config) check() error {
	if err := ordtree.CheckLayout(cfg.Input, cfg.Partition, cfg.Order); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	switch cfg.Frame.Kind {
	case plan.FrameRows, plan.FrameRowsUnbounded, plan.FramePeers, plan.FramePartition, plan.FrameRowsToEnd,
		plan.FramePeersToEnd:
	case plan.FrameNone:
		if len(cfg.Aggs) > 0 {
			return fmt.Errorf("window aggregate: aggregates need a frame")
		}
		for _, f := range cfg.Funcs {
			if f.Kind.UsesFrame() {
				return fmt.Errorf("window aggregate: %s needs a frame", f.Kind)
			}
		}
	default:
		return fmt.Errorf("window aggregate: frame %d: %w", cfg.Frame.Kind, accum.ErrNotSupported)
	}
	if f := cfg.Frame; f.Groups || f.Range {
		// A GROUPS or RANGE frame's outputs are re-evaluated only around
		// the changed rows' peer groups (groupSpans, rangeSpans), which
		// ranking and offset functions do not follow: the planner gives
		// those an operator of their own (no frame).
		for _, fn := range cfg.Funcs {
			if !fn.Kind.UsesFrame() {
				return fmt.Errorf("window aggregate: %s with a GROUPS or RANGE frame (the planner computes it apart)", fn.Kind)
			}
		}
	}
	if f := cfg.Frame; f.Range {
		if len(cfg.Order) != 1 {
			return fmt.Errorf("window aggregate: a RANGE frame with offsets needs one ORDER BY column, not %d", len(cfg.Order))
		}
		switch cfg.Input[cfg.Order[0].Col].Physical() {
		case types.PhysInt64, types.PhysTimestamp, types.PhysDate32, types.PhysFloat64:
		default:
			return fmt.Errorf("window aggregate: RANGE offsets over %s: %w", cfg.Input[cfg.Order[0].Col], accum.ErrNotSupported)
		}
		if f.Kind == plan.FrameRows && (-f.Preceding > f.Following || -f.PrecedingF > f.FollowingF) {
			return fmt.Errorf("window aggregate: frame %s starts after its end", f)
		}
	}
	if f := cfg.Frame; f.Kind == plan.FrameRows && -f.Preceding > f.Following {
		return fmt.Errorf("window aggregate: frame %s starts after its end", f)
	}
	for i, a := range cfg.Aggs {
		if err := a.Check(len(cfg.Input), features); err != nil {
			return fmt.Errorf("window aggregate: aggregate %d: %w", i, err)
		}
	}
	for i := range cfg.Funcs {
		if err := cfg.Funcs[i].check(len(cfg.Input)); err != nil {
			return fmt.Errorf("window aggregate: function %d: %w", i, err)
		}
	}
	if len(cfg.Names) != len(cfg.Input)+len(cfg.Aggs)+len(cfg.Funcs) {
		return fmt.Errorf("window aggregate: %d names for %d input columns, %d aggregates and %d functions",
			len(cfg.Names), len(cfg.Input), len(cfg.Aggs), len(cfg.Funcs))
	}
	return nil
}

// Schema returns the output schema: the input columns, then the
// aggregates.
func (o *Agg) Schema() *arrow.Schema {
	fields := make([]arrow.Field, 0, len(o.cfg.Names))
	for i, typ := range o.cfg.Input {
		fields = append(fields, types.Field(o.cfg.Names[i], typ, true))
	}
	for i, a := range o.cfg.Aggs {
		fields = append(fields, types.Field(o.cfg.Names[len(o.cfg.Input)+i], a.Type, plan.AggNullable(a.Func)))
	}
	for i, f := range o.cfg.Funcs {
		fields = append(fields, types.Field(o.cfg.Names[len(o.cfg.Input)+len(o.cfg.Aggs)+i], f.Type, plan.WinFuncNullable(f.Kind)))
	}
	return arrow.NewSchema(fields, nil)
}

// Open creates empty state.
func (o *Agg) Open(_ context.Context, env *exec.Env) error {
	if err := o.Close(); err != nil {
		return err
	}
	o.env = env
	o.schema = o.Schema()
	o.layout = ordtree.NewLayout(o.cfg.Input, o.cfg.Partition, o.cfg.Order)
	o.inputIDs = opcheck.IDs(o.cfg.Input)
	o.nOrder = 0
	for _, f := range o.layout.Sort {
		if !o.isOrderCol(f.Ord) {
			break
		}
		o.nOrder++
	}
	o.reach = reachOf(&o.cfg)
	o.nRes = len(o.cfg.Aggs) + len(o.cfg.Funcs)
	o.store = rowstore.New(o.cfg.Input)
	o.parts = ordtree.Partitions{}
	o.groups, o.groupGauge = nil, ordtree.Gauge{}
	if o.cfg.needsGroupTree() {
		o.groups = map[*ordtree.Partition]*ordtree.Tree{}
	}
	o.ck, o.pend = checkpoint{}, pendingSnap{}
	o.updateMetrics()
	return nil
}

// isOrderCol reports whether input column c is an ORDER BY column.
func (o *Agg) isOrderCol(c int) bool {
	for _, k := range o.cfg.Order {
		if k.Col == c {
			return true
		}
	}
	return false
}

// Process applies a chunk of changes and emits the resulting changes of
// the output rows, then updates the state gauges. An error (a retraction of
// a row never inserted, a SUM out of range) leaves the state undefined: the
// query must stop.
func (o *Agg) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk("window aggregate", o.store != nil, in, c, o.inputIDs, o.cfg.Input); empty || err != nil {
		return err
	}
	o.parts.Begin()
	err := o.encode(c.Batch)
	if err == nil {
		o.collect(c)
		err = o.diff(c.Batch)
	}
	if err == nil {
		err = o.emit(ctx, out)
	}
	o.finishChunk()
	o.updateMetrics()
	return err
}

// encode makes the partition and sort keys of every row of b, and records
// the length of each sort key's ORDER BY prefix.
func (o *Agg) encode(b arrow.RecordBatch) error {
	n := int(b.NumRows())
	o.skeys = ordtree.ResetKeys(o.skeys, n)
	o.olens = o.olens[:0]
	if o.nOrder == 0 {
		o.olens = append(o.olens, make([]int32, n)...)
	}
	for j, f := range o.layout.Sort {
		if err := ordtree.EncodeColumn(o.skeys, b.Column(f.Ord), f.Desc); err != nil {
			return err
		}
		if j == o.nOrder-1 {
			for _, k := range o.skeys {
				o.olens = append(o.olens, int32(len(k)))
			}
		}
	}
	o.pkeys = ordtree.ResetKeys(o.pkeys, n)
	for _, f := range o.layout.Part {
		if err := ordtree.EncodeColumn(o.pkeys, b.Column(f.Ord), false); err != nil {
			return err
		}
	}
	return nil
}

// OnControl does nothing: the operator buffers no output between chunks.
func (o *Agg) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// Close drops the state. It is safe without Open and idempotent.
func (o *Agg) Close() error {
	o.store, o.parts = nil, ordtree.Partitions{}
	o.groups, o.cur, o.curBatch = nil, nil, nil
	o.ck, o.pend = checkpoint{}, pendingSnap{}
	o.deltas = nil
	o.netter.Release()
	o.olds, o.news, o.vals, o.rows = nil, nil, nil, nil
	o.pkeys, o.skeys = nil, nil
	o.ev = eval{}
	return nil
}

// updateMetrics sets the state gauges: rows held and an estimate of their
// bytes (keys, tree entries, partitions, the stored values and the
// checkpoints' bookkeeping).
func (o *Agg) updateMetrics() {
	if o.env == nil || o.store == nil {
		return
	}
	o.env.Metrics.StateKeys.Store(o.parts.Gauge.Rows)
	o.env.Metrics.StateBytes.Store(o.parts.Gauge.Bytes() + o.groupGauge.Bytes() + o.store.Bytes() + o.ck.bytes() + o.pend.bytes())
}

// StateOutlivesInput implements exec.FiniteInputState: the partitions
// serve only to compute the rows still to come.
func (o *Agg) StateOutlivesInput() bool { return false }
