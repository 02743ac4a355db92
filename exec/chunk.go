package exec

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/exec/expr"
)

// Op is the change a row of a Chunk makes to the collection it describes.
// Insert and UpdateAfter have weight +1; Delete and UpdateBefore −1. An update
// is an UpdateBefore row (the old value) immediately followed by an
// UpdateAfter row (the new value).
type Op int8

// The row operations, printed as in Flink's changelog: +I, -D, -U, +U.
const (
	Insert       Op = iota // +I
	Delete                 // -D
	UpdateBefore           // -U
	UpdateAfter            // +U
)

// String returns +I, -D, -U or +U.
func (o Op) String() string {
	switch o {
	case Insert:
		return "+I"
	case Delete:
		return "-D"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	}
	return "?"
}

// Weight is the Z-set weight of the operation: +1 or −1.
func (o Op) Weight() int64 {
	if o == Delete || o == UpdateBefore {
		return -1
	}
	return 1
}

// IsRetraction reports whether the row removes a previous row.
func (o Op) IsRetraction() bool { return o == Delete || o == UpdateBefore }

// Chunk is a batch of changes: Arrow columns plus, per row, its operation.
// Ops is nil when every row is an Insert (append-only data needs no ops).
//
// Ownership: a Chunk passed to a function is borrowed for the duration of the
// call, its batch and its Ops alike. A callee that keeps the chunk beyond the
// call must Retain the batch (and Release it later) and copy Ops (producers
// may reuse their ops buffer for the next chunk); the caller releases what
// it created after the call.
type Chunk struct {
	Batch arrow.RecordBatch
	Ops   []Op
}

// NumRows is the number of rows in the chunk.
func (c Chunk) NumRows() int {
	if c.Batch == nil {
		return 0
	}
	return int(c.Batch.NumRows())
}

// Op returns the operation of row i.
func (c Chunk) Op(i int) Op {
	if c.Ops == nil {
		return Insert
	}
	return c.Ops[i]
}

// Keep returns a chunk the caller may hold beyond the current call: the
// batch retained, the ops copied.
func (c Chunk) Keep() Chunk {
	c.Batch.Retain()
	if c.Ops != nil {
		c.Ops = append([]Op(nil), c.Ops...)
	}
	return c
}

// AppendOnly reports whether every row of the chunk is an Insert.
func (c Chunk) AppendOnly() bool {
	for _, o := range c.Ops {
		if o != Insert {
			return false
		}
	}
	return true
}

// ControlKind is the kind of a control message.
type ControlKind uint8

// The control messages that travel in order with the data.
const (
	// Watermark: no later row will carry an event time below Watermark.
	Watermark ControlKind = iota + 1
	// Barrier: a checkpoint barrier for Epoch.
	Barrier
	// Flush: every row ingested before flush FlushID was requested has been
	// sent ahead of this marker (SQL.md FLUSH).
	Flush
	// EndOfInput: the input is finished (a bounded source read to its end).
	// Nothing follows it.
	EndOfInput
	// CaughtUp: the rows that were waiting when the query started have all
	// been sent ahead of this marker (each source sends it once, when it
	// first catches up or ends). An operator sees it once per input, with
	// Input set, and then once with Input -1 when every input has; only
	// that last one travels on downstream.
	CaughtUp
	// LatencyMarker: round Epoch of the latency markers every source
	// sends, when the query measures its latency (SET latency_interval),
	// after the rows it emitted before it; Emitted is when the round was
	// emitted. The runtime aligns it like a flush marker (so it reaches
	// the sink after every row any source emitted before then) and
	// operators never see it: the sink records how long it took.
	LatencyMarker
)

// BatchRows is the number of rows sources put in a batch: large enough that
// per-batch costs (a call per operator, a channel send per exchange) vanish
// next to per-row work, small enough that a batch's columns stay in cache
// and latency at low rates stays low. Snapshots of views are cut into
// batches of this size too.
const BatchRows = 4096

// MaxWatermark is the watermark of an input that has ended: every event
// time is behind it.
const MaxWatermark = int64(1<<63 - 1)

// Control is a control message. Operators see a control message once it has
// arrived on every input (aligned); a watermark is then the minimum over the
// inputs.
type Control struct {
	Kind      ControlKind
	Watermark int64 // ms since the epoch; for Watermark
	// Idle marks a watermark message that says its sender has had no data
	// for a while: receivers stop waiting for its watermark until it sends
	// a watermark again.
	Idle bool
	// Epoch is a Barrier's checkpoint, or a LatencyMarker's round.
	Epoch   uint64
	FlushID uint64
	Input   int // for CaughtUp: the operator input it is about (-1: all)
	// Emitted is when a LatencyMarker's round was emitted at the sources
	// (Unix nanoseconds).
	Emitted int64
}

// String renders the message for traces and tests.
func (c Control) String() string {
	switch c.Kind {
	case Watermark:
		if c.Idle {
			return "idle"
		}
		if c.Watermark == MaxWatermark {
			return "watermark(+inf)"
		}
		return "watermark(" + strconv.FormatInt(c.Watermark, 10) + ")"
	case Barrier:
		return "barrier(" + strconv.FormatUint(c.Epoch, 10) + ")"
	case Flush:
		return "flush(" + strconv.FormatUint(c.FlushID, 10) + ")"
	case EndOfInput:
		return "end-of-input"
	case CaughtUp:
		if c.Input < 0 {
			return "caught-up"
		}
		return "caught-up(input " + strconv.Itoa(c.Input) + ")"
	case LatencyMarker:
		return "latency(" + strconv.FormatUint(c.Epoch, 10) + ")"
	}
	return "control(?)"
}

// TakeRows returns a new chunk holding c's rows at positions sel, ops
// included, allocated from alloc; c is unchanged.
func TakeRows(alloc memory.Allocator, c Chunk, sel []int32) (Chunk, error) {
	b := c.Batch
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		a, err := expr.Take(alloc, b.Column(i), sel)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return Chunk{}, fmt.Errorf("exec: taking rows: %w", err)
		}
		cols[i] = a
	}
	out := Chunk{Batch: array.NewRecordBatch(b.Schema(), cols, int64(len(sel)))}
	for _, a := range cols {
		a.Release()
	}
	if c.Ops != nil {
		out.Ops = make([]Op, len(sel))
		for i, r := range sel {
			out.Ops[i] = c.Ops[r]
		}
	}
	return out, nil
}

// TakeRowsParts returns one chunk of the rows sels[k] of parts[k], part
// after part (their Ops too, if any part has them), in one copy of the
// rows (expr.TakeParts). The parts must have one schema.
func TakeRowsParts(alloc memory.Allocator, parts []Chunk, sels [][]int32) (Chunk, error) {
	first := parts[0].Batch
	cols := make([]arrow.Array, first.NumCols())
	arrs := make([]arrow.Array, len(parts))
	n, ops := 0, false
	for k, p := range parts {
		n += len(sels[k])
		ops = ops || p.Ops != nil
	}
	for i := range cols {
		for k, p := range parts {
			arrs[k] = p.Batch.Column(i)
		}
		a, err := expr.TakeParts(alloc, arrs, sels)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return Chunk{}, fmt.Errorf("exec: taking rows: %w", err)
		}
		cols[i] = a
	}
	out := Chunk{Batch: array.NewRecordBatch(first.Schema(), cols, int64(n))}
	for _, a := range cols {
		a.Release()
	}
	if ops {
		out.Ops = make([]Op, 0, n)
		for k, p := range parts {
			for _, r := range sels[k] {
				out.Ops = append(out.Ops, p.Op(int(r)))
			}
		}
	}
	return out, nil
}
