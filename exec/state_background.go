package exec

import "context"

// BackgroundSnapshotter is implemented by a DeferredSnapshotter that may
// write a pending snapshot on a goroutine of its own, while the
// operator's goroutine goes on processing input, rather than in steps
// between its chunks: what Flink calls the asynchronous part of a
// snapshot. The operator still copies on write whatever it changes before
// the writer reached it, and the writer and the operator claim each
// pending entry so that exactly one of them writes it.
//
// While the writer runs, SnapshotBusy returns a channel that is closed
// when it is done, and SnapshotStep has nothing to write and returns at
// once, not done; the runtime then waits for its input or for that
// channel, whichever comes first, instead of calling SnapshotStep in a
// loop. Once the channel is closed the next SnapshotStep finishes the
// snapshot (it reports the writer's error, if any). The operator writes
// in the background only with a StateWriter that is a StateWriterForker.
type BackgroundSnapshotter interface {
	DeferredSnapshotter
	// SnapshotBusy returns a channel closed when the goroutine writing the
	// pending snapshot is done, or nil when none was started.
	SnapshotBusy() <-chan struct{}
}

// StateWriterForker is implemented by a StateWriter that can hand out
// writers of the same table for another goroutine.
type StateWriterForker interface {
	StateWriter
	// Fork returns a writer of the same table for one other goroutine.
	// What it writes reaches the table, in order, when it calls Flush
	// (and when its buffer fills): after what the parent flushed before
	// and before what the parent flushes after that Flush returned.
	Fork() ForkedStateWriter
}

// ForkedStateWriter is a StateWriter a StateWriterForker handed out.
type ForkedStateWriter interface {
	StateWriter
	// Flush writes what the writer buffers into the table; it is called
	// on the writer's goroutine.
	Flush() error
	// Join flushes what is left and counts the writer's entries as its
	// parent's. It is called on the parent's goroutine once the other is
	// done with the writer, which is not used again.
	Join() error
}

// WaitSnapshot waits until d's background writer, if one is running, is
// done, or ctx is.
func WaitSnapshot(ctx context.Context, d DeferredSnapshotter) error {
	b, ok := d.(BackgroundSnapshotter)
	if !ok {
		return nil
	}
	if ch := b.SnapshotBusy(); ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
