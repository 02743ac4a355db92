//go:build !linux

package build

import "time"

// threadCPU is unknown here: BenchmarkCheckpointPauses reports wall times
// only.
func threadCPU() (time.Duration, bool) { return 0, false }

// lockThread does nothing where threadCPU is unknown.
func lockThread() {}
