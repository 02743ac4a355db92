//go:build unix

package main

import (
	"fmt"
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) this process has used
// so far, from getrusage(RUSAGE_SELF).
func processCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
