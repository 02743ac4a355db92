//go:build unix

package engine

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
// The planning benchmarks report it per operation besides wall time: on a
// machine shared with other work, wall time measures the machine's load
// as much as the planner, CPU time the planner's own work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
