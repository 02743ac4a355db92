package dataflow

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
)

// Injected task failures, for the tests of recovery (the crash harness
// runs eddy with EDDY_TEST_TASK_PANIC_RATE set). With a rate p > 0, a
// task of a job that takes checkpoints panics before it processes a chunk
// with probability p (and the next n chunks after InjectTestPanics(n)), as
// an operator with a bug would; the runtime turns
// the panic into the job's ErrInternal failure. The rate is 0 unless set,
// which costs a task one atomic load per chunk.

// panicRate holds the probability, as float64 bits.
var panicRate atomic.Uint64

func init() {
	if v := os.Getenv("EDDY_TEST_TASK_PANIC_RATE"); v != "" {
		if p, err := strconv.ParseFloat(v, 64); err == nil && p > 0 && p <= 1 {
			SetTestPanicRate(p)
		}
	}
}

// panicCount is how many more chunks of checkpointed jobs' tasks are to
// panic regardless of the rate.
var panicCount atomic.Int64

// SetTestPanicRate sets the probability with which a task of a
// checkpointed job panics before a chunk (0: never). Tests only.
func SetTestPanicRate(p float64) { panicRate.Store(math.Float64bits(p)) }

// ResetTestPanics stops injecting failures: the rate is 0 and no chunk
// that InjectTestPanics asked for is left to panic. Tests only.
func ResetTestPanics() {
	panicRate.Store(0)
	panicCount.Store(0)
}

// InjectTestPanics makes the next n chunks that tasks of checkpointed
// jobs take panic, whatever the rate. Tests only.
func InjectTestPanics(n int64) { panicCount.Add(n) }

// injectFailure reports whether the task is to fail now, at the injected
// rate.
func (t *task) injectFailure() bool {
	bits := panicRate.Load()
	if bits == 0 && panicCount.Load() <= 0 || !t.env.Checkpointing {
		return false
	}
	if panicCount.Load() > 0 && panicCount.Add(-1) >= 0 {
		return true
	}
	return bits != 0 && rand.Float64() < math.Float64frombits(bits)
}

// restoreHold, when set, holds the restore of every task that is not a
// sink until it is closed (HoldRestores).
var restoreHold atomic.Pointer[chan struct{}]

// HoldRestores makes the tasks of jobs started from now on that restore a
// checkpoint, except their sink tasks, wait before reading their state
// until the returned function is called (or their job is stopped): a
// test can so see what a job does while its state is read back. Tests
// only.
func HoldRestores() (release func()) {
	ch := make(chan struct{})
	restoreHold.Store(&ch)
	return func() {
		if restoreHold.CompareAndSwap(&ch, nil) {
			close(ch)
		}
	}
}
