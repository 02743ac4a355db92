package exec

import "context"

// Keyed state and checkpoints: the contract between operators and the
// runtime.
//
// Where state lives. A keyed stage hashes each row's key (HashRows) into
// one of NumKeyGroups key groups (KeyGroup), and an instance owns a
// contiguous range of groups (KeyGroupsOf; the exchange routes by the same
// function, InstanceForKeyGroup). An operator keeps its state in memory,
// in whatever shape suits it, but must be able to tell the key group of
// everything it keeps: state is snapshotted, restored and — when a query
// is rescaled — moved by key group, never rehashed. Operators whose state
// is not keyed (a global aggregate, a Top-N without partitions) run as
// one instance and keep their state in the first group of their range.
//
// How a barrier reaches it. Sources emit checkpoint barriers (Control with
// Kind Barrier and the checkpoint's Epoch) in order with their data; the
// runtime aligns them across a task's inputs like every other marker and
// delivers the aligned barrier to each operator of the chain through
// OnControl, where an operator that buffers output emits it. Then, for
// every operator that implements Stateful, the runtime calls Snapshot
// before forwarding the barrier downstream: a snapshot holds exactly the
// effects of the input before the barrier. An operator that implements
// DeferredSnapshotter only begins its snapshot there and writes the rest
// in steps after the barrier went on, copy-on-write (state_deferred.go).
//
// How it snapshots and restores. Snapshot writes what changed since the
// previous snapshot — entries put or deleted, keyed within their key
// group — so a checkpoint costs what the epoch changed, not what the
// state holds. The runtime stores the entries in the job's state store
// (storage.StateStore, one table per operator) and commits the epoch once
// every task has written its snapshot, all of it. When a job resumes from a
// checkpoint, the runtime calls Restore after Open and before any input,
// with a reader over the operator's entries and the key groups the
// instance owns (Env.KeyGroups). The encoding of entries belongs to the
// operator's state shape (a keyed hash table, a row store, an ordered
// tree), written once per shape in exec/internal and shared by the
// operators that use it.

// KeyGroupRange is the key groups [Lo, Hi) an instance owns.
type KeyGroupRange struct {
	Lo, Hi int
}

// Contains reports whether group g is in the range.
func (r KeyGroupRange) Contains(g int) bool { return g >= r.Lo && g < r.Hi }

// Len returns the number of groups in the range.
func (r KeyGroupRange) Len() int { return r.Hi - r.Lo }

// KeyGroupsOf returns the key groups that instance owns among p instances:
// every group g with InstanceForKeyGroup(g, p) == instance.
func KeyGroupsOf(instance, p int) KeyGroupRange {
	ceilDiv := func(a, b int) int { return (a + b - 1) / b }
	return KeyGroupRange{Lo: ceilDiv(instance*NumKeyGroups, p), Hi: ceilDiv((instance+1)*NumKeyGroups, p)}
}

// Stateful is implemented by operators whose state outlives a chunk and
// must survive a restart or move between instances. The runtime calls its
// methods from the operator's goroutine, between calls of Process and
// OnControl.
type Stateful interface {
	// Snapshot writes the state changed since the previous snapshot (since
	// Open or Restore, for the first) to w, by key group. The runtime
	// calls it when a checkpoint barrier has been aligned, after the
	// operator's OnControl for the barrier.
	Snapshot(ctx context.Context, epoch uint64, w StateWriter) error
	// Restore rebuilds the state of the key groups in groups — those the
	// instance owns, Env.KeyGroups — from the entries of the last
	// completed checkpoint. The runtime calls it after Open and before any
	// input, only when the job resumes from a checkpoint.
	Restore(ctx context.Context, r StateReader, groups KeyGroupRange) error
}

// StateWriter receives a snapshot's entries. Keys are the operator's own,
// unique within their key group; the writer copies keys and values.
type StateWriter interface {
	// Put sets key in group to value.
	Put(group int, key, value []byte) error
	// Delete removes key from group.
	Delete(group int, key []byte) error
}

// StateReader reads back an operator's entries as of the last completed
// checkpoint.
type StateReader interface {
	// Scan calls fn for every entry of the key groups in groups, in order
	// of group, then key. key and value are valid only until fn returns.
	Scan(ctx context.Context, groups KeyGroupRange, fn func(group int, key, value []byte) error) error
}

// FiniteInputState is implemented by stateful operators that can tell
// whether their state still matters once the job's every source has
// ended for good (FiniteSource). The final checkpoint of such a job does
// not write the state of an operator whose StateOutlivesInput is false,
// and a job resumed from that checkpoint does not restore it: the
// operator starts empty, and is given no row, only the control messages
// that still flow (watermarks, end of input), for which an empty
// operator of this kind emits nothing. Flink's finished tasks restore
// nothing in the same way (FLIP-147). An operator that does not
// implement it keeps its state, as do a materialized view's rows.
type FiniteInputState interface {
	Stateful
	// StateOutlivesInput reports whether the state is still needed
	// after the input ended for good: false for state that only serves
	// to process more input (a join's sides, a keyed aggregate's
	// groups, a Top-N's partitions); true when an empty operator would
	// emit something without input (a global aggregate's row, emitted
	// once) or has work left that time alone triggers (a state TTL's
	// evictions).
	StateOutlivesInput() bool
}

// Stateless is implemented by operators that keep nothing between calls
// that a restart would need (a projection and filter, window assignment, a
// union). A job whose every operator is Stateful or Stateless and whose
// every source is Positioned can resume from a checkpoint; an operator
// that is neither keeps state the runtime cannot snapshot, and a job with
// one does not checkpoint on its own nor resume.
type Stateless interface {
	Operator
	// KeepsNoState marks the operator as stateless.
	KeepsNoState()
}

// Committer is implemented by stateful operators that publish output
// outside eddy exactly once, in two phases (as Flink's two-phase commit
// sinks): Snapshot makes what the operator staged since the previous
// checkpoint durable and records it in its state (the pre-commit), and
// Commit publishes it once the checkpoint's epoch has committed. A
// restore publishes what the restored checkpoint staged but did not
// publish before the crash and discards what later epochs staged, so the
// published output is the checkpoint's, row for row.
type Committer interface {
	Stateful
	// Commit publishes what the operator staged for every epoch up to
	// epoch, which has committed. Unlike Stateful's methods, the runtime
	// calls it from the checkpoint coordinator while the operator may be
	// processing input: it must touch only what earlier Snapshots staged.
	// It may be called after Close, and more than once for an epoch.
	Commit(ctx context.Context, epoch uint64) error
}
