package topn

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/exec/internal/ordtree"
)

// Config configures a Top-N operator: ROW_NUMBER() OVER (PARTITION BY Partition
// ORDER BY Order) filtered by rn <= Limit.
type Config struct {
	// Input are the input column types.
	Input []types.T
	// Partition are the input ordinals of the PARTITION BY columns; empty
	// for a global Top-N.
	Partition []int
	// PartKeys, when set, are the indexes in Partition of the columns the
	// input was hashed on, in the order it was (a join's keys before the
	// Top-N): a partition's key group is theirs. Nil: every PARTITION BY
	// column, in order.
	PartKeys []int
	// Order are the ORDER BY keys: input ordinals with their direction.
	Order []ordtree.SortKey
	// Limit is N: the operator keeps the rows numbered 1..N of every
	// partition (rn <= N; de-duplication, rn = 1, is Limit 1). It must be
	// at least 1.
	Limit int64
	// RowNumber adds a trailing BIGINT column with each row's number.
	RowNumber bool
	// AppendOnly is set when the planner guarantees that the input never
	// retracts; the state then keeps only the top Limit rows per partition.
	AppendOnly bool
	// Names are the output column names: the input's, then the row
	// number's when RowNumber is set.
	Names []string
}

// Operator is the incremental Top-N operator. Its output, integrated, is
// always exactly the rows numbered 1..Limit of every partition of the
// integral of its input so far (a multiset: identical rows count
// separately), with their row number when RowNumber is set. Rows are numbered by Order, ties broken
// by the remaining columns in input order (ascending), so that the result
// does not depend on arrival order; fully identical rows are
// interchangeable. Values order as types.Compare orders them: NULL first
// ascending and last descending, and a double's NaN before every number.
//
// After each chunk (never within one) it emits, for every partition the
// chunk touched, +I for each row that entered the top rows, -D for each row
// that left, and with RowNumber an adjacent -U old / +U new for each row
// whose number changed; a row that entered and left within the chunk, and a
// row that did not change, emit nothing. With Limit 1 and no row number a
// partition whose only row was replaced by another emits -U old / +U new
// (the same logical slot of the partition) rather than -D and +I.
//
// State: a partition's rows are encoded as order-preserving byte strings
// (the ORDER BY columns, DESC ones with inverted bytes, then the remaining
// columns; see keys.go), so that ranking is bytes.Compare (of an
// 8-byte integer prefix first, kept beside each key), and held with their
// number of copies in a counted B+tree (ordtree.Tree) that finds a row's rank
// and the row at a rank in O(log n). Output rows are decoded from their
// keys, so a double's -0 comes out as 0, which it equals, and every NaN as
// one NaN. In general every row of a partition is kept, so that a
// retraction of a top row can promote the next one. With AppendOnly only
// the top Limit rows are kept and a row that cannot enter is dropped at
// once; de-duplication (AppendOnly, Limit 1, no row number) keeps a single
// key per partition in a table of slots without pointers (slots.go). A
// chunk costs time in proportion to its rows times log n plus its output,
// never to the number of partitions or rows held.
type Operator struct {
	cfg      Config
	hashed   []int // the input ordinals a partition's key group hashes (Config.hashOrds)
	env      *exec.Env
	schema   *arrow.Schema
	layout   ordtree.Layout
	inputIDs []arrow.Type // the Arrow type of each input column

	parts    ordtree.Partitions // general mode; its Epoch and Gauge serve both modes
	slots    *slotTable         // de-duplication mode: the partitions (slots.go)
	builders []array.Builder
	// dataPerRow is, per output column of variable width, the bytes of
	// values per row of the last batch emitted: the next batch reserves
	// as much for its rows at once (emit.go).
	dataPerRow []float64
	changes    ordtree.Changes // general mode: the rows changed since the last snapshot
	dedup      dedupDelta      // de-duplication mode: the slots changed since the last snapshot
	top        topPending      // general mode: a snapshot written in steps (topsnap.go)
	snap       snapshot        // Snapshot's scratch

	// Scratch reused across chunks.
	pkeys, skeys [][]byte // per input row: its partition key and sort key
	touchedSlots []touchedSlot
	deltas       []ordtree.Delta // the chunk's changes, in input order
	netter       ordtree.Netter
	oldRanks     []int64
	newRanks     []int64
	outRows      []outRow
	ops          []exec.Op
	inOps        []exec.Op     // ProcessParts: the parts' rows' operations
	one          [1]exec.Chunk // Process: its chunk, as the parts run takes
	decodeBuf    []byte
	stringBuf    []byte
}

var (
	_ exec.Operator         = (*Operator)(nil)
	_ exec.Stateful         = (*Operator)(nil)
	_ exec.FiniteInputState = (*Operator)(nil)
	_ exec.PartsProcessor   = (*Operator)(nil)
)

// errRetraction is returned when an input declared append-only retracts.
var errRetraction = errors.New("top-n: the input is declared append-only but retracts a row")

// New checks cfg and returns a Top-N operator; Open creates its state.
func New(cfg Config) (*Operator, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	return &Operator{cfg: cfg, hashed: cfg.hashOrds()}, nil
}

// check validates the configuration.
func (cfg *Config) check() error {
	if err := ordtree.CheckLayout(cfg.Input, cfg.Partition, cfg.Order); err != nil {
		return fmt.Errorf("top-n: %w", err)
	}
	if cfg.Limit < 1 {
		return fmt.Errorf("top-n: limit %d is not positive", cfg.Limit)
	}
	for _, k := range cfg.PartKeys {
		if k < 0 || k >= len(cfg.Partition) {
			return fmt.Errorf("top-n: partition key %d is not one of its %d PARTITION BY columns", k, len(cfg.Partition))
		}
	}
	want := len(cfg.Input)
	if cfg.RowNumber {
		want++
	}
	if len(cfg.Names) != want {
		return fmt.Errorf("top-n: %d names for %d output columns", len(cfg.Names), want)
	}
	return nil
}

// dedup reports whether the operator runs the de-duplication fast path.
func (cfg *Config) dedup() bool {
	return cfg.AppendOnly && cfg.Limit == 1 && !cfg.RowNumber
}

// Schema returns the output schema: the input columns, then the row number
// when RowNumber is set.
func (t *Operator) Schema() *arrow.Schema {
	fields := make([]arrow.Field, 0, len(t.cfg.Names))
	for i, typ := range t.cfg.Input {
		fields = append(fields, types.Field(t.cfg.Names[i], typ, true))
	}
	if t.cfg.RowNumber {
		fields = append(fields, types.Field(t.cfg.Names[len(t.cfg.Input)], types.BigIntT, false))
	}
	return arrow.NewSchema(fields, nil)
}

// Open creates empty state and the output builders.
func (t *Operator) Open(_ context.Context, env *exec.Env) error {
	if err := t.Close(); err != nil {
		return err
	}
	t.env = env
	t.schema = t.Schema()
	t.layout = ordtree.NewLayout(t.cfg.Input, t.cfg.Partition, t.cfg.Order)
	t.inputIDs = opcheck.IDs(t.cfg.Input)
	t.parts, t.changes, t.dedup, t.top = ordtree.Partitions{}, ordtree.Changes{}, dedupDelta{}, topPending{}
	if t.cfg.AppendOnly {
		// A partition holds at most Limit rows, and Limit+1 while a row
		// enters and the last leaves: its leaf starts with room for them.
		t.parts.LeafCap = int(min(t.cfg.Limit+1, ordtree.MaxLeafCap))
	}
	if t.cfg.dedup() {
		t.slots = newSlotTable()
	} else if env.Checkpointing {
		// Every change is noted from the start, so that the first
		// snapshot begins as the others do, from the list.
		t.changes.Done()
	}
	t.builders = arrays.Builders(env.Alloc, t.schema)
	t.updateMetrics()
	return nil
}

// Process applies a chunk of changes and emits the resulting changes of the
// top rows, then updates the state gauges. An error (a retraction of a row
// never inserted) leaves the state undefined: the query must stop.
func (t *Operator) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk("top-n", t.builders != nil, in, c, t.inputIDs, t.cfg.Input); empty || err != nil {
		return err
	}
	t.one[0] = c
	err := t.run(ctx, t.one[:], nil, c.Ops, out)
	t.one[0] = exec.Chunk{}
	return err
}

// TakesParts reports whether the operator takes an exchange's parts in
// place: in general it does; de-duplication, which hashes each new
// partition's columns from its chunk, does not.
func (t *Operator) TakesParts() bool { return !t.cfg.dedup() }

// ProcessParts applies the rows sels[k] of chunks[k], part after part, as
// Process would a chunk of them.
func (t *Operator) ProcessParts(ctx context.Context, in int, chunks []exec.Chunk, sels [][]int32, out exec.Emitter) error {
	if !t.TakesParts() {
		return errors.New("top-n: de-duplication takes whole chunks, not parts")
	}
	n, withOps := 0, false
	for k, c := range chunks {
		if _, err := opcheck.Chunk("top-n", t.builders != nil, in, c, t.inputIDs, t.cfg.Input); err != nil {
			return err
		}
		n += len(sels[k])
		withOps = withOps || c.Ops != nil
	}
	if n == 0 {
		return nil
	}
	var ops []exec.Op
	if withOps {
		t.inOps = t.inOps[:0]
		for k, c := range chunks {
			for _, r := range sels[k] {
				t.inOps = append(t.inOps, c.Op(int(r)))
			}
		}
		ops = t.inOps
	}
	return t.run(ctx, chunks, sels, ops, out)
}

// run applies the rows of chunks (their rows sels[k], or all of them when
// sels is nil), whose operations are ops (nil: all inserts), emits the
// resulting changes and updates the state gauges.
func (t *Operator) run(ctx context.Context, chunks []exec.Chunk, sels [][]int32, ops []exec.Op, out exec.Emitter) error {
	t.parts.Begin()
	err := t.encode(chunks, sels)
	switch {
	case err != nil:
	case t.slots != nil:
		err = t.applyDedup(chunks[0]) // never parts (TakesParts)
		if err == nil {
			t.diffDedup()
		}
	default:
		err = t.apply(ops)
		if err == nil {
			t.diff()
		}
	}
	if err == nil {
		err = t.emit(ctx, out)
	}
	t.finishChunk()
	t.updateMetrics()
	return err
}

// OnControl does nothing: the operator buffers no output between chunks,
// and a per-window Top-N (partitioned by window_start and window_end) has
// its state freed by the planner's own means.
func (t *Operator) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// Close releases the output builders and drops the state. It is safe
// without Open and idempotent.
func (t *Operator) Close() error {
	arrays.ReleaseBuilders(t.builders)
	t.builders = nil
	t.parts, t.slots = ordtree.Partitions{}, nil
	t.changes, t.dedup, t.top, t.snap = ordtree.Changes{}, dedupDelta{}, topPending{}, snapshot{}
	t.touchedSlots, t.deltas, t.outRows = nil, nil, nil
	t.netter.Release()
	t.pkeys, t.skeys = nil, nil
	return nil
}

// updateMetrics sets the state gauges: rows held and an estimate of their
// bytes.
func (t *Operator) updateMetrics() {
	if t.env == nil {
		return
	}
	t.env.Metrics.StateKeys.Store(t.parts.Gauge.Rows)
	t.env.Metrics.StateBytes.Store(t.parts.Gauge.Bytes() + t.changes.Bytes() + t.dedup.bytes() + t.top.bytes())
}

// hashOrds returns the input ordinals a partition's key group hashes, in
// order: the columns the input was hashed on.
func (cfg *Config) hashOrds() []int {
	if cfg.PartKeys == nil {
		return cfg.Partition
	}
	ords := make([]int, len(cfg.PartKeys))
	for i, k := range cfg.PartKeys {
		ords[i] = cfg.Partition[k]
	}
	return ords
}

// StateOutlivesInput implements exec.FiniteInputState: the partitions
// serve only to rank rows still to come, and an empty Top-N emits
// nothing without input.
func (t *Operator) StateOutlivesInput() bool { return false }
