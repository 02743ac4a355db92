package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Emitter receives an operator's output: the next operator of a fused chain,
// an exchange, or a sink. Emit borrows the chunk (see Chunk).
type Emitter interface {
	Emit(ctx context.Context, c Chunk) error
}

// EmitterFunc adapts a function to Emitter.
type EmitterFunc func(ctx context.Context, c Chunk) error

// Emit calls f.
func (f EmitterFunc) Emit(ctx context.Context, c Chunk) error { return f(ctx, c) }

// Operator is one step of a dataflow. Operators are push-based: the runtime
// calls Process for each input chunk and OnControl for each aligned control
// message, and the operator emits its output to out. The runtime forwards a
// control message downstream after OnControl returns, so an operator that
// buffers output (a mini-batch, a window awaiting its watermark) emits it in
// OnControl, ahead of the message.
//
// An Operator value holds its configuration and its state for one parallel
// instance; the runtime calls it from one goroutine.
type Operator interface {
	// Open prepares the operator: compiles expressions, opens state.
	Open(ctx context.Context, env *Env) error
	// Process handles a chunk from input number in (0 for single-input
	// operators).
	Process(ctx context.Context, in int, c Chunk, out Emitter) error
	// OnControl handles an aligned control message.
	OnControl(ctx context.Context, m Control, out Emitter) error
	// Close releases everything the operator holds. It is safe to call
	// without Open and more than once.
	Close() error
}

// WatermarkAbsorber is implemented by operators whose output rows carry no
// event time the watermark could bound: a regular join emits a match when
// its second row arrives, however far the watermark has moved since its
// first. When AbsorbsWatermarks is true, a watermark stops at the
// operator — those after it, in its stage and downstream, see none (and
// so close no window early) until the input ends and the watermark
// becomes +infinity. Idle markers stop there too.
type WatermarkAbsorber interface {
	AbsorbsWatermarks() bool
}

// PartsProcessor is implemented by operators that can take a hash
// partition's rows where they lie: the rows sels[k] of chunks[k], part
// after part, processed as one chunk of those rows would be. A hash
// exchange then sends such an operator the rows of its producer's chunks
// without copying them into a chunk of their own. The chunks and sels are
// borrowed, as Process borrows its chunk. TakesParts reports whether the
// instance takes parts at all (an operator may in one configuration only);
// an exchange copies the rows for one that does not.
type PartsProcessor interface {
	TakesParts() bool
	ProcessParts(ctx context.Context, in int, chunks []Chunk, sels [][]int32, out Emitter) error
}

// OutputDeferrer is implemented by operators that hold back output across
// chunks while more input is at hand, so that several chunks' changes of
// a row fold into one (a mini-batch). FlushDeferred emits what the
// operator holds; its task calls it, operator after operator of its chain,
// before it waits for input, so deferring delays no output beyond the
// input already queued. An operator emits what it holds by itself before
// any control message its held output must precede.
type OutputDeferrer interface {
	FlushDeferred(ctx context.Context, out Emitter) error
}

// ProcessingTimer is implemented by operators that act when processing
// time passes, whether input arrives or not: a file sink writes out the
// rows it buffers once they have waited its flush interval, even when no
// more input comes. After Open and after each call into the operator
// (Process, OnControl, OnTimer) its task asks NextTimer when it is next
// due, and calls OnTimer from the operator's goroutine — between chunks
// and control messages, and also while the task waits for input — once
// that time has come. Timers are checked only in tasks whose chain has
// such an operator, so the others pay nothing.
type ProcessingTimer interface {
	// NextTimer returns when OnTimer should next be called, by Env.Now's
	// clock; the zero Time means no timer is pending. After OnTimer it
	// must return a later time, or zero.
	NextTimer() time.Time
	// OnTimer handles a due timer; now, at or after the time NextTimer
	// returned, is the task's clock. Output goes to out as from Process.
	OnTimer(ctx context.Context, now time.Time, out Emitter) error
}

// Env is what the runtime gives an operator instance.
type Env struct {
	// Alloc allocates Arrow buffers; tests pass a checked allocator.
	Alloc memory.Allocator
	// Instance and Parallelism locate this instance among its stage's.
	Instance, Parallelism int
	// KeyGroups are the key groups the instance owns: the keys a hash
	// exchange routes to it, and the state it snapshots and restores
	// (see Stateful).
	KeyGroups KeyGroupRange
	// Metrics is the operator's own: the runtime counts rows, batches and
	// busy time there; stateful operators set the state gauges. Never nil.
	Metrics *OperatorMetrics
	// OnWarning, if set, receives warnings for the user (such as a bad
	// input row a source skipped).
	OnWarning func(msg string)
	// Resuming says the job resumes from a checkpoint: the runtime calls
	// the operator's Restore (see Stateful) after Open.
	Resuming bool
	// Relayout says the checkpoint it resumes from was written by a plan
	// that placed some state otherwise than by key group alone (an
	// adaptive join's distribution, or a broadcast join's parallelism,
	// changed since): an operator whose state's placement depends on that
	// reads all of it to move its own (exec/join's relayout). Without it,
	// every instance's state is in the key groups it owns.
	Relayout bool
	// Checkpointing says the job takes checkpoints (it has a state store
	// and can resume). A Committer publishes its output when it is told
	// that a checkpoint committed; without checkpoints no one tells it,
	// and it must publish as it goes.
	Checkpointing bool
	// Clock, if set, replaces time.Now as Now: tests give operators a
	// fake clock. The runtime leaves it nil.
	Clock func() time.Time
	// CoarseChangelog says no one observes the job's changelog change by
	// change (a view's or a blackhole sink's job): only what the changes
	// integrate to. An operator may then fold the changes of several
	// chunks into one (OutputDeferrer).
	CoarseChangelog bool
	// Shared is the same for every instance of the stage in this job:
	// what the splits of a source share (see Shared). It is nil when an
	// instance runs alone (NewTestEnv), which then shares with no one.
	Shared *Shared
}

// Now returns the processing time: Clock's, or time.Now's.
func (e *Env) Now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

// Warnf reports a warning for the user through OnWarning.
func (e *Env) Warnf(format string, args ...any) {
	if e.OnWarning != nil {
		e.OnWarning(fmt.Sprintf(format, args...))
	}
}

// NewTestEnv returns an Env for a single instance using alloc.
func NewTestEnv(alloc memory.Allocator) *Env {
	return &Env{Alloc: alloc, Parallelism: 1, KeyGroups: KeyGroupsOf(0, 1), Metrics: &OperatorMetrics{}}
}
