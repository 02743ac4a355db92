package dedup

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/internal/opcheck"
	"github.com/eddysql/eddy/exec/internal/rowkey"
	"github.com/eddysql/eddy/exec/internal/vec"
)

// Operator drops the rows whose key it saw in a kept row less than the
// window before (processing time) or away (event time); see the package
// documentation. Its output is its input's kept rows, in order, as
// inserts. It refuses retractions: a source it de-duplicates is
// append-only.
type Operator struct {
	cfg  Config
	env  *exec.Env
	ids  []arrow.Type
	open bool

	set exactSet
	bkt buckets
	d   delta
	// now is the latest processing time seen (processing-time windows
	// never run backwards, whatever the clock does); wm the latest
	// watermark (event time).
	now, wm int64

	stats   Stats
	metrics struct{ dups, lookups, falsePos *atomic.Int64 }

	// Per-batch scratch.
	keyCols []arrow.Array
	hashes  []uint64
	sel     []int32
	key     []byte
	hbuf    [8]byte
}

// Stats are the operator's figures since Open, which EXPLAIN ANALYZE shows
// as duplicates, exact_lookups and bloom_false_positives beside the rows
// in.
type Stats struct {
	RowsIn int64
	// Duplicates are the rows dropped.
	Duplicates int64
	// ExactLookups are the rows whose key a Bloom filter said might have
	// been seen, looked up in the exact set.
	ExactLookups int64
	// FalsePositives are the exact lookups that found no key within the
	// window.
	FalsePositives int64
}

var (
	_ exec.Operator         = (*Operator)(nil)
	_ exec.Stateful         = (*Operator)(nil)
	_ exec.FiniteInputState = (*Operator)(nil)
)

// ErrRetraction is returned for an input row that retracts: a
// de-duplicated source is append-only.
var ErrRetraction = errors.New("dedup: the input retracts a row, but a de-duplicated source is append-only")

// noTime is the watermark and processing time before the first.
const noTime = -1 << 63

// New checks cfg and returns an operator; Open creates its state.
func New(cfg Config) (*Operator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Operator{cfg: cfg}, nil
}

// Stats returns the operator's figures since Open.
func (o *Operator) Stats() Stats { return o.stats }

// Open implements exec.Operator: it starts with nothing remembered.
func (o *Operator) Open(_ context.Context, env *exec.Env) error {
	o.Close()
	o.env, o.ids, o.open = env, opcheck.IDs(o.cfg.Input), true
	o.set = exactSet{}
	o.bkt = buckets{width: o.cfg.width(), fpr: o.cfg.FPR / float64(o.cfg.candidates()), last: -1}
	o.d = delta{}
	o.now, o.wm = noTime, noTime
	o.stats = Stats{}
	o.metrics.dups = env.Metrics.Counter("duplicates")
	o.metrics.lookups = env.Metrics.Counter("exact_lookups")
	o.metrics.falsePos = env.Metrics.Counter("bloom_false_positives")
	o.keyCols = make([]arrow.Array, len(o.cfg.Keys))
	o.updateMetrics()
	return nil
}

// Process implements exec.Operator: it passes on the rows of c that are
// not duplicates.
func (o *Operator) Process(ctx context.Context, in int, c exec.Chunk, out exec.Emitter) error {
	empty, err := opcheck.Chunk("dedup", o.open, in, c, o.ids, o.cfg.Input)
	if empty || err != nil {
		return err
	}
	if !c.AppendOnly() {
		return ErrRetraction
	}
	n := c.NumRows()
	var times []arrow.Timestamp
	var timeCol *array.Timestamp
	if o.cfg.TimeCol >= 0 {
		timeCol = c.Batch.Column(o.cfg.TimeCol).(*array.Timestamp)
		times = timeCol.TimestampValues()
	} else {
		o.now = max(o.now, o.env.Now().UnixMilli())
		o.expire(satSub(o.now, o.cfg.WindowMs))
	}
	for i, k := range o.cfg.Keys {
		o.keyCols[i] = c.Batch.Column(k)
	}
	o.hashes = vec.Resize(o.hashes, n)
	if err := exec.HashRows(o.keyCols, o.hashes); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	o.sel = o.sel[:0]
	past := o.cfg.TimeCol < 0
	nullTimes := timeCol != nil && timeCol.NullN() > 0
	var dups, lookups, falsePos int64
	for i, h := range o.hashes {
		t := o.now
		if times != nil {
			if nullTimes && timeCol.IsNull(i) {
				// No event time: the row cannot be placed in a window. It
				// is kept and not remembered.
				o.sel = append(o.sel, int32(i))
				continue
			}
			t = int64(times[i])
		}
		binary.LittleEndian.PutUint64(o.hbuf[:], h)
		if o.bkt.maybeHas(o.hbuf[:], t, o.cfg.WindowMs, past) {
			lookups++
			o.key = rowkey.Append(o.key[:0], o.keyCols, i)
			if o.set.lookup(h, o.key, t, o.cfg.WindowMs, o.keyOf) {
				dups++
				continue
			}
			falsePos++
		}
		o.sel = append(o.sel, int32(i))
		o.remember(h, t, i)
	}
	o.stats.RowsIn += int64(n)
	o.stats.Duplicates += dups
	o.stats.ExactLookups += lookups
	o.stats.FalsePositives += falsePos
	o.metrics.dups.Add(dups)
	o.metrics.lookups.Add(lookups)
	o.metrics.falsePos.Add(falsePos)
	o.updateMetrics()
	switch len(o.sel) {
	case n:
		return out.Emit(ctx, c)
	case 0:
		return nil
	}
	kept, err := exec.TakeRows(o.env.Alloc, c, o.sel)
	if err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	defer kept.Batch.Release()
	return out.Emit(ctx, kept)
}

// keyOf returns the key bytes of entry e.
func (o *Operator) keyOf(e *entry) []byte {
	return o.bkt.pool[e.bucket].keys[e.off : e.off+e.n]
}

// hashOf returns the hash of entry id as the 8 bytes the filters take.
func (o *Operator) hashOf(id int32) []byte {
	binary.LittleEndian.PutUint64(o.hbuf[:], o.set.entries[id].hash)
	return o.hbuf[:]
}

// remember adds the key of row i of the current key columns, of hash h,
// kept at time t.
func (o *Operator) remember(h uint64, t int64, i int) {
	bi := o.bkt.find(t, o.bkt.observed())
	b := &o.bkt.pool[bi]
	off := len(b.keys)
	b.keys = rowkey.Append(b.keys, o.keyCols, i)
	o.bkt.keyBytes += int64(len(b.keys) - off)
	o.add(entry{hash: h, time: t, bucket: bi, off: uint32(off), n: uint32(len(b.keys) - off)}, b)
}

// add adds e to the exact set and to bucket b (the pool's e.bucket), its
// hash to b's filter, and marks it for the next snapshot.
func (o *Operator) add(e entry, b *bucket) int32 {
	id := o.set.add(e)
	b.entries = append(b.entries, id)
	binary.LittleEndian.PutUint64(o.hbuf[:], e.hash)
	b.filter.Add(o.hbuf[:])
	if len(b.entries) > b.cap {
		o.bkt.regrow(b, o.hashOf)
	}
	o.d.mark(&o.set, id)
	return id
}

// OnControl implements exec.Operator: in event time, a watermark frees
// the buckets whose times it has left a window behind.
func (o *Operator) OnControl(_ context.Context, m exec.Control, _ exec.Emitter) error {
	if m.Kind == exec.Watermark && !m.Idle && o.cfg.TimeCol >= 0 && m.Watermark > o.wm {
		o.wm = m.Watermark
		o.expire(satSub(o.wm, o.cfg.WindowMs))
		o.updateMetrics()
	}
	return nil
}

// expire drops the buckets whose times are all at or below horizon: no
// row still to come can be less than a window away from them. It costs
// time in proportion to the entries dropped.
func (o *Operator) expire(horizon int64) {
	k := o.bkt.expired(horizon)
	for _, bi := range o.bkt.live[:k] {
		b := &o.bkt.pool[bi]
		for _, id := range b.entries {
			if o.set.entries[id].flags&written != 0 {
				o.d.deleted(&o.set.entries[id], o.keyOf(&o.set.entries[id]))
			}
			o.set.remove(id)
		}
	}
	if k > 0 {
		o.bkt.drop(k)
	}
}

// updateMetrics sets the state gauges: the keys remembered and the bytes
// of the exact set, the buckets and the delta.
func (o *Operator) updateMetrics() {
	m := o.env.Metrics
	m.StateKeys.Store(int64(o.set.idx.Len()))
	m.StateBytes.Store(o.set.bytes() + o.bkt.bytes(o.set.idx.Len()) + o.d.bytes())
}

// Close implements exec.Operator: it drops the state. It is safe without
// Open and idempotent.
func (o *Operator) Close() error {
	o.open = false
	o.set, o.bkt, o.d = exactSet{}, buckets{}, delta{}
	o.keyCols, o.hashes, o.sel, o.key = nil, nil, nil, nil
	return nil
}

// StateOutlivesInput implements exec.FiniteInputState: the keys seen
// serve only to drop the duplicates still to come.
func (o *Operator) StateOutlivesInput() bool { return false }
