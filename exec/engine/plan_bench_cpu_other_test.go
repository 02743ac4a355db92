//go:build !unix

package engine

import "time"

// processCPU is unknown here: the planning benchmarks report wall time
// only.
func processCPU() time.Duration { return 0 }
