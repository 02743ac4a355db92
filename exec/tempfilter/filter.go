// Package tempfilter is the temporal filter: a continuous query's `WHERE
// ts > NOW() - INTERVAL ...`, which passes a row while the condition holds
// and retracts it when the processing time moves past its bound (as
// RisingWave's and Materialize's temporal filters do); and its mirror,
// `WHERE ts < NOW() + INTERVAL ...` (Config.Delay), which holds a row
// until the processing time reaches it and then passes it.
package tempfilter

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/catalog/types"
	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/arrays"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/exec/internal/rowkey"
)

// Config configures a Filter.
type Config struct {
	// Input are the column types of the input, which is also the output.
	Input []types.T
	Names []string
	// TimeCol is the input ordinal of the TIMESTAMP column compared with
	// NOW(): a row passes while TimeCol > NOW() + Offset (>= when
	// Inclusive).
	TimeCol   int
	Inclusive bool
	Offset    int64
	// Delay makes the filter bound the time column from above: a row
	// passes once TimeCol < NOW() + Offset (<= when Inclusive) holds, and
	// is held until then (released in order of that time).
	Delay bool
	// NowUnit is the milliseconds NOW() is cut to (1 for NOW(), 1000 for
	// NOW(0)); 0 is 1.
	NowUnit int64
}

// MinTick is the least time between two expiries: rows expiring within
// it leave together, so a busy stream does not wake the filter every
// millisecond.
const MinTick = 10 * time.Millisecond

// Filter is the temporal filter. It keeps the rows it passed that will
// expire — each row once with its count, in the key group of the hash of
// all its columns — in a heap ordered by expiry, so that a tick costs what
// expires. NOW() is the task's clock (exec.Env.Now), never going back: it
// advances before every chunk and on the processing-time timer due at the
// next expiry (exec.ProcessingTimer). A row that arrives already expired
// is dropped, and so is the later retraction of any row once expired
// (the filter retracted it then); the retraction of a row still kept
// removes it and passes.
type Filter struct {
	cfg    Config
	env    *exec.Env
	schema *arrow.Schema
	ids    []arrow.Type

	now      int64 // NOW(), in milliseconds; math.MinInt64 before the first
	rows     map[string]*entry
	heap     expiryHeap
	bytes    int64
	lastTick time.Time

	// Per-chunk scratch.
	keyBuf []byte
	hashes []uint64
	sel    []int32

	delta delta
}

// entry is a row kept: its values, how many times the input holds it, when
// it expires and its key group.
type entry struct {
	key    string
	vals   []types.Datum
	count  int64
	expiry int64
	group  int32
	pos    int32 // index in the heap
	dirty  bool  // listed in delta.dirty
	dead   bool  // removed from rows
}

var (
	_ exec.Operator        = (*Filter)(nil)
	_ exec.ProcessingTimer = (*Filter)(nil)
	_ exec.Stateful        = (*Filter)(nil)
)

// New returns a temporal filter.
func New(cfg Config) (*Filter, error) {
	if cfg.TimeCol < 0 || cfg.TimeCol >= len(cfg.Input) || cfg.Input[cfg.TimeCol].Kind != types.Timestamp {
		return nil, fmt.Errorf("temporal filter: column %d is not a TIMESTAMP of the input", cfg.TimeCol)
	}
	if len(cfg.Names) != len(cfg.Input) {
		return nil, fmt.Errorf("temporal filter: %d names for %d columns", len(cfg.Names), len(cfg.Input))
	}
	if cfg.NowUnit <= 0 {
		cfg.NowUnit = 1
	}
	return &Filter{cfg: cfg}, nil
}

// Open prepares the filter.
func (f *Filter) Open(_ context.Context, env *exec.Env) error {
	f.env = env
	fields := make([]arrow.Field, len(f.cfg.Input))
	for i, t := range f.cfg.Input {
		fields[i] = types.Field(f.cfg.Names[i], t, true)
	}
	f.schema = arrow.NewSchema(fields, nil)
	f.ids = opcheck.IDs(f.cfg.Input)
	f.rows = map[string]*entry{}
	f.now = minNow
	f.delta = delta{nowEverywhere: true}
	return nil
}

// minNow is NOW() before the filter first read the clock.
const minNow = -1 << 63

// expiryOf returns when a row of time ts changes: the first NOW() at
// which ts > NOW() + Offset (or >=) no longer holds, or, delaying, the
// first at which ts < NOW() + Offset (or <=) does.
func (f *Filter) expiryOf(ts int64) int64 {
	e := ts - f.cfg.Offset
	if f.cfg.Inclusive != f.cfg.Delay {
		e++
	}
	return e
}

// advance moves NOW() to the clock's time t (never back) and emits the
// retractions of the rows that expired.
func (f *Filter) advance(ctx context.Context, t time.Time, out exec.Emitter) error {
	now := t.UnixMilli()
	now -= now % f.cfg.NowUnit
	if now <= f.now {
		return nil
	}
	f.now = now
	f.delta.nowChanged = true
	return f.expire(ctx, out)
}

// expire retracts every row whose expiry NOW() has reached (delaying:
// passes every row whose time has come), in order of expiry, in chunks of
// at most exec.BatchRows rows.
func (f *Filter) expire(ctx context.Context, out exec.Emitter) error {
	if len(f.heap) == 0 || f.heap[0].expiry > f.now {
		return nil
	}
	bs := arrays.Builders(f.env.Alloc, f.schema)
	defer arrays.ReleaseBuilders(bs)
	var ops []exec.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		cols := make([]arrow.Array, len(bs))
		for i, b := range bs {
			cols[i] = b.NewArray()
		}
		err := arrays.Emit(ctx, out, f.schema, cols, len(ops), ops)
		ops = nil
		return err
	}
	op := exec.Delete
	if f.cfg.Delay {
		op = exec.Insert
	}
	for len(f.heap) > 0 && f.heap[0].expiry <= f.now {
		e := f.heap.pop()
		for range e.count {
			for i, b := range bs {
				types.AppendDatum(b, e.vals[i], f.cfg.Input[i])
			}
			ops = append(ops, op)
			if len(ops) == exec.BatchRows {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		f.remove(e)
	}
	f.gauge()
	return flush()
}

// Process passes the rows that qualify at NOW(), keeping the inserted
// ones until they expire.
func (f *Filter) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	if empty, err := opcheck.Chunk("temporal filter", f.env != nil, in, c, f.ids, f.cfg.Input); empty || err != nil {
		return err
	}
	if err := f.advance(ctx, f.env.Now(), out); err != nil {
		return err
	}
	n := c.NumRows()
	cols := c.Batch.Columns()
	if cap(f.hashes) < n {
		f.hashes = make([]uint64, n)
	}
	f.hashes = f.hashes[:n]
	if err := exec.HashRows(cols, f.hashes); err != nil {
		return err
	}
	ts := cols[f.cfg.TimeCol].(*array.Timestamp)
	f.sel = f.sel[:0]
	if f.cfg.Delay {
		if err := f.delay(c, cols, ts); err != nil {
			return err
		}
		return f.emitSelected(ctx, c, out)
	}
	for i := range n {
		if ts.IsNull(i) {
			continue
		}
		expiry := f.expiryOf(int64(ts.Value(i)))
		if expiry <= f.now {
			continue // expired: dropped on arrival, or already retracted
		}
		f.keyBuf = rowkey.Append(f.keyBuf[:0], cols, i)
		e, ok := f.rows[string(f.keyBuf)]
		if c.Op(i).IsRetraction() {
			if !ok {
				return fmt.Errorf("temporal filter: retraction of a row it does not hold: (%s)", f.format(cols, i))
			}
			e.count--
			f.touch(e)
			if e.count == 0 {
				f.heap.remove(e)
				f.remove(e)
			}
		} else {
			if !ok {
				e = &entry{key: string(f.keyBuf), vals: f.rowAt(cols, i), expiry: expiry, group: int32(exec.KeyGroup(f.hashes[i]))}
				f.rows[e.key] = e
				f.heap.push(e)
				f.bytes += entryBytes(e)
			}
			e.count++
			f.touch(e)
		}
		f.sel = append(f.sel, int32(i))
	}
	f.gauge()
	return f.emitSelected(ctx, c, out)
}

// emitSelected emits the rows of c in f.sel.
func (f *Filter) emitSelected(ctx context.Context, c exec.Chunk, out exec.Emitter) error {
	switch len(f.sel) {
	case 0:
		return nil
	case c.NumRows():
		return out.Emit(ctx, c)
	}
	kept, err := exec.TakeRows(f.env.Alloc, c, f.sel)
	if err != nil {
		return err
	}
	defer kept.Batch.Release()
	return out.Emit(ctx, kept)
}

// delay selects the rows of a chunk a delaying filter passes now: an
// insertion whose time has come, and a retraction of a row it does not
// hold (it passed the row, on arrival or when its time came); it holds an
// insertion whose time has not come, and a retraction of a held row
// cancels one copy, passing nothing. Copies of a row share its time, so
// they are all held or all passed.
func (f *Filter) delay(c exec.Chunk, cols []arrow.Array, ts *array.Timestamp) error {
	for i := range c.NumRows() {
		if ts.IsNull(i) {
			continue // NULL < x is never TRUE
		}
		due := f.expiryOf(int64(ts.Value(i)))
		f.keyBuf = rowkey.Append(f.keyBuf[:0], cols, i)
		e, held := f.rows[string(f.keyBuf)]
		switch {
		case c.Op(i).IsRetraction() && held:
			e.count--
			f.touch(e)
			if e.count == 0 {
				f.heap.remove(e)
				f.remove(e)
			}
		case c.Op(i).IsRetraction(), due <= f.now:
			f.sel = append(f.sel, int32(i))
		default:
			if !held {
				e = &entry{key: string(f.keyBuf), vals: f.rowAt(cols, i), expiry: due, group: int32(exec.KeyGroup(f.hashes[i]))}
				f.rows[e.key] = e
				f.heap.push(e)
				f.bytes += entryBytes(e)
			}
			e.count++
			f.touch(e)
		}
	}
	f.gauge()
	return nil
}

// remove forgets a row no longer kept (already out of the heap).
func (f *Filter) remove(e *entry) {
	delete(f.rows, e.key)
	e.dead = true
	f.bytes -= entryBytes(e)
	f.delta.removed(e)
}

// touch marks a row changed since the last snapshot.
func (f *Filter) touch(e *entry) {
	if f.delta.tracking && !e.dirty {
		e.dirty = true
		f.delta.dirty = append(f.delta.dirty, e)
	}
}

func (f *Filter) rowAt(cols []arrow.Array, i int) []types.Datum {
	vals := make([]types.Datum, len(cols))
	for j, col := range cols {
		vals[j] = types.DatumAt(col, i, f.cfg.Input[j])
	}
	return vals
}

func (f *Filter) format(cols []arrow.Array, i int) string {
	s := ""
	for j, d := range f.rowAt(cols, i) {
		if j > 0 {
			s += ", "
		}
		s += types.Format(d, f.cfg.Input[j])
	}
	return s
}

// entryBytes estimates the memory of a kept row.
func entryBytes(e *entry) int64 {
	n := int64(96 + len(e.key) + 32*len(e.vals))
	for _, v := range e.vals {
		n += int64(len(v.S))
	}
	return n
}

func (f *Filter) gauge() {
	f.env.Metrics.StateKeys.Store(int64(len(f.rows)))
	f.env.Metrics.StateBytes.Store(f.bytes)
}

// OnControl has nothing to do: expiries follow the clock, not watermarks.
func (f *Filter) OnControl(context.Context, exec.Control, exec.Emitter) error { return nil }

// NextTimer returns when the next kept row expires (no sooner than MinTick
// after the last expiry), or zero when none is kept.
func (f *Filter) NextTimer() time.Time {
	if len(f.heap) == 0 {
		return time.Time{}
	}
	e := f.heap[0].expiry
	if r := e % f.cfg.NowUnit; r != 0 {
		e += f.cfg.NowUnit - r // NOW() reaches it at the next multiple
	}
	due := time.UnixMilli(e)
	if soonest := f.lastTick.Add(MinTick); due.Before(soonest) {
		due = soonest
	}
	return due
}

// OnTimer advances NOW() to now and retracts what expired.
func (f *Filter) OnTimer(ctx context.Context, now time.Time, out exec.Emitter) error {
	f.lastTick = now
	return f.advance(ctx, now, out)
}

// Close releases the rows kept.
func (f *Filter) Close() error {
	f.rows, f.heap = nil, nil
	return nil
}
