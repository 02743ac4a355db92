package dataflow

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/exec"
)

// WatermarkSpec makes a source stage track event time: after each chunk its
// watermark is the largest event time seen minus Delay; rows behind the
// watermark (late rows) are dropped, counted and handed to OnLate; a source
// without data for IdleTimeout stops holding back downstream watermarks;
// and the end of a bounded source moves the watermark to MaxWatermark.
type WatermarkSpec struct {
	// TimeCol is the ordinal of the event-time column (a TIMESTAMP) in the
	// source's chunks.
	TimeCol int
	// DelayMs is how far the watermark trails the largest event time.
	DelayMs int64
	// IdleTimeout is how long a source may go without data before it is
	// marked idle; 0 never marks it idle.
	IdleTimeout time.Duration
	// SplitsShareTime says the source's splits cover the same span of
	// event time, each a share of it (a generator's events n mod P), not
	// stretches of it one after another (a file's byte ranges): a split
	// that reads faster than the others runs ahead in event time, and
	// JobOptions.SplitAlignment keeps it within a drift of them.
	SplitsShareTime bool
	// OnLate, if set, receives the late rows of each chunk with the
	// position of the chunk's first row among all rows the source read
	// (late ones included), so a receiver can route each late row once
	// however many queries read the same source.
	OnLate func(ctx context.Context, pos int64, late exec.Chunk) error
}

// watermarker applies a WatermarkSpec to one source instance's chunks.
type watermarker struct {
	spec     WatermarkSpec
	alloc    memory.Allocator
	metrics  *exec.OperatorMetrics
	wm       int64 // current watermark; noWatermark before the first row
	pos      int64 // rows read so far, late rows included
	lastData time.Time
	idle     bool
	// parts, when set, is a source tracking its partitions' event times:
	// the watermark follows the least of them (exec.PartitionedEventTime).
	parts   exec.PartitionedEventTime
	sel     []int32
	lateSel []int32
}

func newWatermarker(spec WatermarkSpec, alloc memory.Allocator, m *exec.OperatorMetrics) *watermarker {
	return &watermarker{spec: spec, alloc: alloc, metrics: m, wm: noWatermark, lastData: time.Now()}
}

// trackPartitions makes the watermark follow src's partitions, when src
// tracks their event times (exec.PartitionedEventTime); the runtime calls
// it once the source is open.
func (w *watermarker) trackPartitions(src exec.Source) {
	if pe, ok := src.(exec.PartitionedEventTime); ok && pe.TrackEventTime(w.spec.TimeCol, w.spec.IdleTimeout) {
		w.parts = pe
	}
}

// apply drops c's late rows (judged against the watermark before c) and
// returns the chunk to process and whether the watermark advanced. The
// returned chunk is c itself when no row is late; otherwise a new chunk the
// caller releases along with c.
func (w *watermarker) apply(ctx context.Context, c exec.Chunk) (exec.Chunk, bool, error) {
	n := c.NumRows()
	pos := w.pos
	w.pos += int64(n)
	w.lastData = time.Now()
	col, ok := c.Batch.Column(w.spec.TimeCol).(*array.Timestamp)
	if !ok {
		return c, false, fmt.Errorf("exec: event-time column %d is %s, not a TIMESTAMP", w.spec.TimeCol, c.Batch.Column(w.spec.TimeCol).DataType())
	}
	vals := col.TimestampValues()
	nulls := col.NullN() > 0
	maxTs := noWatermark
	w.sel, w.lateSel = w.sel[:0], w.lateSel[:0]
	for i := 0; i < n; i++ {
		if nulls && col.IsNull(i) {
			w.sel = append(w.sel, int32(i)) // no event time: never late
			continue
		}
		ts := int64(vals[i])
		if ts < w.wm {
			w.lateSel = append(w.lateSel, int32(i))
			continue
		}
		w.sel = append(w.sel, int32(i))
		maxTs = max(maxTs, ts)
	}
	out := c
	if len(w.lateSel) > 0 {
		w.metrics.LateRows.Add(int64(len(w.lateSel)))
		if w.spec.OnLate != nil {
			late, err := exec.TakeRows(w.alloc, c, w.lateSel)
			if err != nil {
				return c, false, err
			}
			err = w.spec.OnLate(ctx, pos, late)
			late.Batch.Release()
			if err != nil {
				return c, false, fmt.Errorf("routing late rows: %w", err)
			}
		}
		var err error
		if out, err = exec.TakeRows(w.alloc, c, w.sel); err != nil {
			return c, false, err
		}
	}
	if w.parts != nil {
		if b, ok := w.parts.EventTimeBound(time.Now()); ok {
			maxTs = b
		} else {
			maxTs = noWatermark
		}
	}
	advanced := false
	if maxTs != noWatermark {
		if next := maxTs - w.spec.DelayMs; next > w.wm {
			w.wm = next
			advanced = true
			w.metrics.Watermark.Store(next)
		}
	}
	if w.idle {
		// Data again: downstream must wait for this source's watermark.
		w.idle, advanced = false, w.wm != noWatermark
	}
	return out, advanced, nil
}

// idleDeadline returns when the source becomes idle if no data arrives, and
// false when it never does (no timeout, or already idle).
func (w *watermarker) idleDeadline() (time.Time, bool) {
	if w.spec.IdleTimeout <= 0 || w.idle {
		return time.Time{}, false
	}
	return w.lastData.Add(w.spec.IdleTimeout), true
}

// control returns the watermark message for the current state.
func (w *watermarker) control() exec.Control {
	return exec.Control{Kind: exec.Watermark, Watermark: w.wm, Idle: w.idle}
}
