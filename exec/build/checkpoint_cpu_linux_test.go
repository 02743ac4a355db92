//go:build linux

package build

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID: the CPU time of
// the calling thread, to the nanosecond (getrusage's thread times advance
// by scheduler ticks, 4 ms here, longer than a batch takes).
const clockThreadCPUTime = 3

// threadCPU returns the CPU time the calling thread has used, and true.
// BenchmarkCheckpointPauses times each batch by it besides wall time: on
// a machine shared with other work, a batch's wall time includes the time
// the thread waited for a core, its CPU time only the work. The caller
// must be locked to its thread (lockThread).
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// lockThread locks the calling goroutine to its thread, so that
// threadCPU measures it; the thread ends with the goroutine.
func lockThread() { runtime.LockOSThread() }

// clockMonotonic is Linux's CLOCK_MONOTONIC, the clock `perf record -k
// CLOCK_MONOTONIC` stamps its events with.
const clockMonotonic = 1

// batchMark returns the time on CLOCK_MONOTONIC, in nanoseconds, and the
// calling thread's id, for -ckpt.slowlog: a slow batch's start and end so
// marked can be set against a perf recording of the same run.
func batchMark() (int64, int) {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), syscall.Gettid()
}

// processCPU returns the CPU time the whole process has used (user and
// system), and true: BenchmarkCheckpointPauses reports how many cores its
// window took, the checkpoints' background work included.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
