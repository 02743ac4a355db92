//go:build unix

package nexmark

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// usage returns the CPU time (user + system) this process has used so far,
// the system part of it, and its peak resident set size in bytes, from
// getrusage(RUSAGE_SELF).
func usage() (cpu, sys time.Duration, peakRSS int64, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	sys = time.Duration(ru.Stime.Nano())
	peakRSS = int64(ru.Maxrss)
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		peakRSS *= 1024 // Linux and the BSDs count kibibytes; Darwin, bytes
	}
	return cpu, sys, peakRSS, nil
}
