package exec

import (
	"context"
	"math"
)

// DeferredSnapshotter is implemented by a Stateful operator that can
// write a snapshot a part at a time while it goes on processing input, so
// that a checkpoint pauses it for the time it takes to capture what
// changed, not to write it. The snapshot still holds exactly the state as
// of the barrier: the operator copies on write.
//
// At the aligned barrier the runtime calls BeginSnapshot instead of
// Snapshot. The operator captures what changed since the previous
// snapshot (swapping its dirty set out, say) in time independent of how
// much changed, may write part of it, and reports whether entries remain.
// If they do, the barrier goes on downstream at once and the runtime
// calls SnapshotStep between the chunks the task handles (and in a loop
// while the task has no input), until a step reports it is done. Until
// then the runtime may call Process, OnControl (not for a barrier or the
// end of input) and OnTimer as usual, and before any of them changes what
// a pending entry holds, the operator saves that entry as it was at the
// barrier (writing it, or copying it for a later step) and takes it off
// the pending ones; what changes after the barrier belongs to the next
// snapshot, as usual.
//
// The runtime finishes a pending snapshot (calling SnapshotStep until it
// is done) before it hands the operator the next barrier or the end of
// input, and commits the epoch only once every task has finished its
// snapshot of it. As with Stateful, every method is called from the
// operator's goroutine. Snapshot must still work on its own: it finishes a
// pending snapshot, then writes a whole one.
type DeferredSnapshotter interface {
	Stateful
	// BeginSnapshot starts the snapshot of checkpoint epoch: what changed
	// since the previous snapshot, to be written to w, which stays valid
	// until the snapshot is done. It reports whether entries remain to be
	// written by SnapshotStep.
	BeginSnapshot(ctx context.Context, epoch uint64, w StateWriter) (pending bool, err error)
	// SnapshotStep writes at most about budget (at least 1) of the
	// pending entries of the snapshot begun last, and reports whether none
	// remain. Without a pending snapshot it reports done.
	SnapshotStep(ctx context.Context, budget int) (done bool, err error)
}

// FinishSnapshot writes what remains of d's pending snapshot, if any,
// stepping with no bound (after waiting for a BackgroundSnapshotter's
// writer): what Snapshot does before it begins a new one,
// and after, to write it whole.
func FinishSnapshot(ctx context.Context, d DeferredSnapshotter) error {
	for {
		if err := WaitSnapshot(ctx, d); err != nil {
			return err
		}
		done, err := d.SnapshotStep(ctx, math.MaxInt)
		if err != nil || done {
			return err
		}
	}
}

// SnapshotAtOnce writes d's snapshot of epoch whole, after the rest of one
// begun before: Snapshot for an operator that writes its snapshots in
// steps.
func SnapshotAtOnce(ctx context.Context, d DeferredSnapshotter, epoch uint64, w StateWriter) error {
	if _, err := d.BeginSnapshot(ctx, epoch, w); err != nil {
		return err
	}
	return FinishSnapshot(ctx, d)
}
