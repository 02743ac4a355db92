package dataflow

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// DefaultBufferBytes is a job's buffer budget when JobOptions.BufferBytes
// is zero: the memory its buffering may take.
const DefaultBufferBytes = 64 << 20

// queuedShare is the percentage of the buffer budget the batches queued on
// a job's channels may take; the rest is headroom for the batches its
// operators hold while they work on them and for the allocator's overhead
// (size classes, garbage not yet collected), so that the memory buffering
// costs stays within the budget (BenchmarkThrottledSink).
const queuedShare = 60

// inboxMessages bounds the number of messages an inbox queues, whatever
// their size, so that a flood of tiny batches or control messages is
// bounded too.
const inboxMessages = 64

// inbox is a stage instance's input queue, bounded in messages and in the
// bytes of the batches queued on it: the job's buffer budget is split
// evenly over its inboxes. A sender that would overrun the byte limit waits
// (that is backpressure) until the receiver dequeues enough; a batch larger
// than the whole limit still enters an empty inbox, so any batch makes
// progress. Senders that race past the check together overrun the limit by
// at most one batch each.
type inbox struct {
	ch    chan message
	limit int64
	used  atomic.Int64
	peak  atomic.Int64
	space chan struct{} // a token: the receiver freed bytes
	// takesParts is set when the instance's first operator takes an
	// exchange's parts in place (parts.go), before any task runs.
	takesParts bool
}

func newInbox(limit int64) *inbox {
	return &inbox{ch: make(chan message, inboxMessages), limit: max(limit, 1), space: make(chan struct{}, 1)}
}

// fits reports whether size more bytes may be queued now.
func (b *inbox) fits(size int64) bool {
	u := b.used.Load()
	return u == 0 || u+size <= b.limit
}

// tryPut queues m without waiting; false when the inbox is full.
func (b *inbox) tryPut(m message) bool {
	if !b.fits(m.bytes) {
		return false
	}
	b.reserve(m.bytes)
	select {
	case b.ch <- m:
		return true
	default:
		b.unreserve(m.bytes)
		return false
	}
}

// put queues m, waiting for room; it fails only when ctx ends.
func (b *inbox) put(ctx context.Context, m message) error {
	for !b.fits(m.bytes) {
		select {
		case <-b.space:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b.reserve(m.bytes)
	select {
	case b.ch <- m:
	case <-ctx.Done():
		b.unreserve(m.bytes)
		return ctx.Err()
	}
	if b.used.Load() < b.limit {
		b.signal() // room remains: wake another waiting sender
	}
	return nil
}

func (b *inbox) reserve(size int64) {
	u := b.used.Add(size)
	for p := b.peak.Load(); u > p && !b.peak.CompareAndSwap(p, u); p = b.peak.Load() {
	}
}

func (b *inbox) unreserve(size int64) {
	if size != 0 {
		b.used.Add(-size)
		b.signal()
	}
}

func (b *inbox) signal() {
	select {
	case b.space <- struct{}{}:
	default:
	}
}

// received accounts for a message the receiver took off ch.
func (b *inbox) received(m message) { b.unreserve(m.bytes) }

// errWoken is returned by take when its wake channel fired first.
var errWoken = errors.New("woken")

// take returns the next message, waiting for one or, when wake is not
// nil, until it is closed (errWoken); idle accumulates the nanoseconds
// spent waiting.
func (b *inbox) take(ctx context.Context, wake <-chan struct{}, idle *atomic.Int64) (message, error) {
	var m message
	select {
	case m = <-b.ch:
	default:
		start := time.Now()
		select {
		case m = <-b.ch:
		case <-wake:
			idle.Add(int64(time.Since(start)))
			return message{}, errWoken
		case <-ctx.Done():
			return message{}, ctx.Err()
		}
		idle.Add(int64(time.Since(start)))
	}
	b.received(m)
	return m, nil
}

// drain releases whatever is still queued.
func (b *inbox) drain() {
	for {
		select {
		case m := <-b.ch:
			b.received(m)
			m.release()
		default:
			return
		}
	}
}

// batchBytes is the memory a batch holds: the capacities of its buffers
// (what is allocated, not just what is used). A slice counts its buffers
// whole, since it keeps them alive.
func batchBytes(b arrow.RecordBatch) int64 {
	if b == nil {
		return 0
	}
	var n int64
	for _, col := range b.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Cap()) // what it holds allocated, not just what it uses
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += dataBytes(d.Dictionary())
	}
	return n
}
