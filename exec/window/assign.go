package window

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/expr"
	"github.com/eddysql/eddy/exec/internal/opcheck"
)

// Kind is the kind of time window an Assign puts rows into.
type Kind uint8

// The window table functions of SQL.md ("Time, watermarks, windows"); SESSION
// windows are computed by package sessionwin.
const (
	Tumble   Kind = iota + 1 // TUMBLE(t, size)
	Hop                      // HOP(t, slide, size)
	Cumulate                 // CUMULATE(t, step, max size)
)

// String returns the table function's SQL name.
func (k Kind) String() string {
	switch k {
	case Tumble:
		return "TUMBLE"
	case Hop:
		return "HOP"
	case Cumulate:
		return "CUMULATE"
	}
	return fmt.Sprintf("window.Kind(%d)", uint8(k))
}

// maxWindowsPerRow bounds how many windows one row may belong to (HOP's
// size/slide, CUMULATE's max/step). Each row is copied once per window, so a
// HOP of a day sliding by a millisecond would turn every row into 86 million;
// 2^16 copies per row is far beyond any useful window and still keeps one
// input batch's output within a few hundred megabytes.
const maxWindowsPerRow = 1 << 16

// AssignConfig configures an Assign.
type AssignConfig struct {
	// Input are the input column types.
	Input []types.T
	// TimeCol is the ordinal of the event-time column (TIMESTAMP, ms since
	// the Unix epoch).
	TimeCol int
	Kind    Kind
	// Size is, in ms, the TUMBLE size, the HOP size or the CUMULATE max size.
	Size int64
	// Slide is, in ms, the HOP slide or the CUMULATE step; unused by TUMBLE.
	Slide int64
	// Names are the output column names: the input's, then "window_start"
	// and "window_end".
	Names []string
}

// Assign is the TUMBLE, HOP and CUMULATE table function: it emits every
// input row once per window the row's event time falls in, followed by the
// window's window_start and window_end (of the time column's type). Windows
// are aligned to the Unix epoch, with floor division so that times before
// 1970 fall in the right window:
//
//   - TUMBLE: [⌊t/size⌋·size, +size).
//   - HOP: [s, s+size) for every multiple s of slide with s ≤ t < s+size, in
//     ascending order of s; size need not be a multiple of slide (and when
//     it is smaller, a row between two windows belongs to none).
//   - CUMULATE: with start = ⌊t/max⌋·max, [start, start+k·step) for every
//     k = 1..max/step with start+k·step > t, in ascending order of k.
//
// The operator is linear: each output row carries its input row's op, so a
// retraction retracts the row from every window it was in. An update (a -U
// row followed by its +U row) stays an update per window when both rows fall
// in the same windows (-U, +U for the first window, then for the next);
// otherwise its halves become a -D in each old window and a +I in each new
// one, which is what they then mean.
//
// A row whose event time is NULL belongs to no window: it is dropped and
// counted (Dropped). Watermarks and other control messages pass through
// unchanged: a window's rows are all emitted before the watermark that
// passes its end, since the operator buffers nothing.
type Assign struct {
	cfg AssignConfig

	env      *exec.Env
	schema   *arrow.Schema
	inputIDs []arrow.Type // the Arrow type of each input column
	dropped  atomic.Int64

	// Scratch reused across chunks.
	sel    []int32 // source row of each output row
	starts []int64 // window_start of each output row
	ends   []int64 // window_end of each output row
	segs   []int32 // per source row: the index of its first output row (plus one final entry)
	ops    []exec.Op
	cols   []arrow.Array
}

var _ exec.Operator = (*Assign)(nil)

// NewAssign returns a window assigner configured by cfg. The
// configuration is checked by Open.
func NewAssign(cfg AssignConfig) *Assign {
	return &Assign{cfg: cfg}
}

// Schema returns the output schema; nil before Open.
func (w *Assign) Schema() *arrow.Schema { return w.schema }

// Dropped returns the number of rows dropped so far for their NULL event
// time. It may be called from any goroutine.
func (w *Assign) Dropped() int64 { return w.dropped.Load() }

// check validates the configuration.
func (cfg *AssignConfig) check() error {
	if cfg.TimeCol < 0 || cfg.TimeCol >= len(cfg.Input) {
		return fmt.Errorf("%s: time column %d out of range", cfg.Kind, cfg.TimeCol)
	}
	if t := cfg.Input[cfg.TimeCol]; t.Physical() != types.PhysTimestamp {
		return fmt.Errorf("%s: the time column is %s, not TIMESTAMP", cfg.Kind, t)
	}
	if len(cfg.Names) != len(cfg.Input)+2 {
		return fmt.Errorf("%s: %d names for %d input columns and the window bounds", cfg.Kind, len(cfg.Names), len(cfg.Input))
	}
	if cfg.Size <= 0 {
		return fmt.Errorf("%s: window size %d ms is not positive", cfg.Kind, cfg.Size)
	}
	switch cfg.Kind {
	case Tumble:
		return nil
	case Hop, Cumulate:
	default:
		return fmt.Errorf("window assignment: unknown window kind %d", cfg.Kind)
	}
	if cfg.Slide <= 0 {
		return fmt.Errorf("%s: slide %d ms is not positive", cfg.Kind, cfg.Slide)
	}
	if cfg.Kind == Cumulate && cfg.Size%cfg.Slide != 0 {
		return fmt.Errorf("CUMULATE: max size %d ms is not a multiple of the step %d ms", cfg.Size, cfg.Slide)
	}
	if per := (cfg.Size-1)/cfg.Slide + 1; per > maxWindowsPerRow {
		return fmt.Errorf("%s: %d windows per row (size %d ms, slide %d ms) exceeds the limit of %d",
			cfg.Kind, per, cfg.Size, cfg.Slide, maxWindowsPerRow)
	}
	return nil
}

// Open checks the configuration and builds the output schema.
func (w *Assign) Open(_ context.Context, env *exec.Env) error {
	if err := w.cfg.check(); err != nil {
		return err
	}
	cfg := &w.cfg
	fields := make([]arrow.Field, 0, len(cfg.Names))
	for i, t := range cfg.Input {
		fields = append(fields, types.Field(cfg.Names[i], t, true))
	}
	tt := cfg.Input[cfg.TimeCol]
	fields = append(fields,
		types.Field(cfg.Names[len(cfg.Input)], tt, false),
		types.Field(cfg.Names[len(cfg.Input)+1], tt, false))
	w.schema = arrow.NewSchema(fields, nil)
	w.cols = make([]arrow.Array, len(fields))
	w.inputIDs = opcheck.IDs(cfg.Input)
	w.env = env
	return nil
}

// Process emits the rows of c once per window, with the windows' bounds.
func (w *Assign) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk(w.cfg.Kind.String(), w.env != nil, in, c, w.inputIDs, w.cfg.Input); empty || err != nil {
		return err
	}
	times, ok := c.Batch.Column(w.cfg.TimeCol).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("%s: time column is %s, not a timestamp", w.cfg.Kind, c.Batch.Column(w.cfg.TimeCol).DataType())
	}
	w.assign(times)
	if nulls := times.NullN(); nulls > 0 {
		w.dropped.Add(int64(nulls))
	}
	if len(w.sel) == 0 {
		return nil
	}
	var ops []exec.Op
	if c.Ops != nil {
		ops = w.assignOps(c.Ops)
	}
	rec, err := w.build(c.Batch)
	if err != nil {
		return err
	}
	err = out.Emit(ctx, exec.Chunk{Batch: rec, Ops: ops})
	rec.Release()
	return err
}

// build returns the output batch: every input column gathered at w.sel,
// then the window bounds. A TUMBLE over a batch without NULL times keeps
// every row once, in order, so its input columns pass through uncopied.
func (w *Assign) build(batch arrow.RecordBatch) (arrow.RecordBatch, error) {
	alloc := w.env.Alloc
	identity := w.cfg.Kind == Tumble && len(w.sel) == int(batch.NumRows())
	defer w.releaseCols()
	for i := range w.cfg.Input {
		col := batch.Column(i)
		if identity {
			col.Retain()
			w.cols[i] = col
			continue
		}
		taken, err := expr.Take(alloc, col, w.sel)
		if err != nil {
			return nil, fmt.Errorf("%s: column %d: %w", w.cfg.Kind, i, err)
		}
		w.cols[i] = taken
	}
	k := len(w.cfg.Input)
	dt := w.schema.Field(k).Type
	w.cols[k] = timestampArray(alloc, dt, w.starts)
	w.cols[k+1] = timestampArray(alloc, dt, w.ends)
	return array.NewRecordBatch(w.schema, w.cols, int64(len(w.sel))), nil
}

func (w *Assign) releaseCols() {
	for i, col := range w.cols {
		if col != nil {
			col.Release()
			w.cols[i] = nil
		}
	}
}

// timestampArray returns a timestamp array of type dt without NULLs holding
// vals, copied into one buffer from alloc.
func timestampArray(alloc memory.Allocator, dt arrow.DataType, vals []int64) arrow.Array {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(8 * len(vals))
	copy(arrow.Int64Traits.CastFromBytes(buf.Bytes()), vals)
	data := array.NewData(dt, len(vals), []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	arr := array.MakeFromData(data)
	data.Release()
	return arr
}

// OnControl does nothing: Assign keeps no state between chunks.
func (w *Assign) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// KeepsNoState implements exec.Stateless: windows are assigned row by row.
func (*Assign) KeepsNoState() {}

// Close releases the scratch columns; Process fails afterwards. It is safe
// without Open and idempotent.
func (w *Assign) Close() error {
	w.releaseCols()
	w.env = nil
	return nil
}
