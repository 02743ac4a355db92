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
// with probability p, as an operator with a bug would; the runtime turns
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

// SetTestPanicRate sets the probability with which a task of a
// checkpointed job panics before a chunk (0: never). Tests only.
func SetTestPanicRate(p float64) { panicRate.Store(math.Float64bits(p)) }

// injectFailure reports whether the task is to fail now, at the injected
// rate.
func (t *task) injectFailure() bool {
	bits := panicRate.Load()
	return bits != 0 && t.env.Checkpointing && rand.Float64() < math.Float64frombits(bits)
}
