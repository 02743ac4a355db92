package dataflow

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/eddysql/eddy/exec"
)

// message is what travels on a channel between stages: a chunk or a control
// message, tagged with its sender (for alignment) and with which input of
// the receiving operator it feeds.
type message struct {
	sender int
	input  int
	chunk  exec.Chunk
	// parts, when set instead of chunk, are chunks whose rows sels[k]
	// are the message's, part after part (parts.go).
	parts []exec.Chunk
	sels  [][]int32
	ctrl  exec.Control // Kind 0 for data
	bytes int64        // the batches' buffers, counted against the inbox's budget
}

// Distribution says how an output writer spreads rows over the consumer's
// instances.
type Distribution uint8

// The distributions (see optimizer/physical).
const (
	DistForward Distribution = iota + 1
	DistHash
	DistBroadcast
	DistSingle
	// DistRoundRobin sends each chunk whole to the next consumer instance
	// in turn: for append-only data that may be processed anywhere.
	DistRoundRobin
)

// String returns the distribution's name as EXPLAIN spells it: forward,
// hash, broadcast, single or round-robin.
func (d Distribution) String() string {
	switch d {
	case DistForward:
		return "forward"
	case DistHash:
		return "hash"
	case DistBroadcast:
		return "broadcast"
	case DistSingle:
		return "single"
	case DistRoundRobin:
		return "round-robin"
	}
	return "unknown"
}

// outWriter sends one task's output into the consumer stage's inboxes. It is
// the Emitter at the end of a chain that feeds an exchange. Time blocked on
// a full inbox is backpressure.
type outWriter struct {
	alloc    memory.Allocator
	dist     Distribution
	keys     []int
	inboxes  []*inbox
	instance int // this task's instance index (for forward)
	sender   int // this task's sender index at the consumer
	input    int
	bp       *atomic.Int64 // accumulates backpressured nanoseconds

	// project, when set, are the columns this consumer receives
	// (InputSpec.Project); schema is their schema, made from the
	// upstream schema from (fanout.go).
	project      []int
	from, schema *arrow.Schema

	hashes []uint64
	sels   [][]int32
	next   int // the last instance a round-robin chunk went to

	// Small parts of hash-partitioned chunks wait here, per consumer
	// instance, until they make coalesceRows rows, a control message other
	// than a watermark goes out, or the task runs out of input (see
	// coalesce.go).
	coalesce bool
	pend     [][]heldPart
	pendSel  [][]int32 // per consumer: the held parts' rows, part after part
	pendRows []int
	held     int // parts held since the last flush of every consumer
	// wm is a watermark held back behind the parts that waited when it
	// came (wmWait: their consumers), sent to every consumer once those
	// have gone.
	wm     *exec.Control
	wmWait []bool
	// Scratch of flushTo.
	takeChunks []exec.Chunk
	takeSels   [][]int32
}

func (w *outWriter) send(ctx context.Context, dst int, m message) error {
	m.sender, m.input = w.sender, w.input
	m.bytes = m.size()
	if w.inboxes[dst].tryPut(m) {
		return nil
	}
	start := time.Now()
	defer func() { w.bp.Add(int64(time.Since(start))) }()
	return w.inboxes[dst].put(ctx, m)
}

// Emit implements Emitter. The chunk is borrowed: what is sent is retained
// (or newly built) for the receiver, which releases it.
func (w *outWriter) Emit(ctx context.Context, c exec.Chunk) error {
	if w.project != nil && c.Batch != nil {
		p, release := w.projected(c)
		defer release()
		c = p
	}
	n := len(w.inboxes)
	switch {
	case w.dist == DistForward:
		return w.sendRetained(ctx, w.instance%n, c)
	case w.dist == DistSingle || n == 1:
		return w.sendRetained(ctx, 0, c)
	case w.dist == DistRoundRobin:
		w.next = (w.next + 1) % n
		return w.sendRetained(ctx, w.next, c)
	case w.dist == DistBroadcast:
		for i := 0; i < n; i++ {
			if err := w.sendRetained(ctx, i, c); err != nil {
				return err
			}
		}
		return nil
	}
	return w.emitHashed(ctx, c)
}

func (w *outWriter) sendRetained(ctx context.Context, dst int, c exec.Chunk) error {
	c = c.Keep()
	if err := w.send(ctx, dst, message{chunk: c}); err != nil {
		c.Batch.Release()
		return err
	}
	return nil
}

func (w *outWriter) emitHashed(ctx context.Context, c exec.Chunk) error {
	rows := c.NumRows()
	if cap(w.hashes) < rows {
		w.hashes = make([]uint64, rows)
	}
	w.hashes = w.hashes[:rows]
	cols := make([]arrow.Array, len(w.keys))
	for i, k := range w.keys {
		cols[i] = c.Batch.Column(k)
	}
	if err := exec.HashRows(cols, w.hashes); err != nil {
		return err
	}
	n := len(w.inboxes)
	if len(w.sels) != n {
		w.sels = make([][]int32, n)
	}
	for i := range w.sels {
		w.sels[i] = w.sels[i][:0]
	}
	for r, h := range w.hashes {
		dst := exec.InstanceForKeyGroup(exec.KeyGroup(h), n)
		w.sels[dst] = append(w.sels[dst], int32(r))
	}
	for dst, sel := range w.sels {
		if len(sel) == 0 {
			continue
		}
		if err := w.sendPart(ctx, dst, c, sel); err != nil {
			return err
		}
	}
	return nil
}

// control sends a control message to every consumer instance, after the
// rows waiting to be coalesced; a watermark that comes while rows wait is
// held until they go (holdWatermark).
func (w *outWriter) control(ctx context.Context, m exec.Control) error {
	if m.Kind == exec.Watermark && w.waiting() {
		w.holdWatermark(m)
		return nil
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	for i := range w.inboxes {
		if err := w.send(ctx, i, message{ctrl: m}); err != nil {
			return err
		}
	}
	return nil
}
