//go:build !linux

package build

import "time"

// threadCPU is unknown here: BenchmarkCheckpointPauses reports wall times
// only.
func threadCPU() (time.Duration, bool) { return 0, false }

// lockThread does nothing where threadCPU is unknown.
func lockThread() {}

// batchMark is unknown here: -ckpt.slowlog writes zeros.
func batchMark() (int64, int) { return 0, 0 }

// processCPU is unknown here: BenchmarkCheckpointPauses reports no cores.
func processCPU() (time.Duration, bool) { return 0, false }
