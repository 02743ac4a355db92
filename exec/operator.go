package exec

import (
	"context"
	"fmt"

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
