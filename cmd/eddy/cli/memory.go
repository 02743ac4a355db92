package cli

import (
	"math"
	"runtime/debug"
)

// memoryPlan is how much memory eddy may use and how it is split.
type memoryPlan struct {
	// goLimit is the Go runtime's soft memory limit (GOMEMLIMIT), 0 to
	// leave the runtime's own setting.
	goLimit int64
	// stateLimit bounds the state of all queries together (0: none).
	stateLimit int64
	// bound and source say what the plan was derived from.
	bound  int64
	source string
}

// Shares of the memory bound, with the reasons for each value.
const (
	// stateShare of the bound goes to queries' state: Go's collector
	// needs room for garbage besides live data, and batches in flight,
	// Badger's memtables and caches live outside the state.
	stateShare = 0.5
	// detectedGoShare of a detected bound is given to the Go runtime as
	// its soft limit: a detected bound (a cgroup's memory.max, an address-
	// space rlimit, the machine's memory) also covers what is not Go heap
	// (Badger's memory maps, thread stacks, other processes).
	detectedGoShare = 0.8
)

// planMemory derives the plan from the flags: --memory-limit (0: not
// given) is both the Go runtime's limit and the bound; without it the
// bound is detected from the machine. --state-memory-limit (given: set,
// with 0 meaning none) overrides the state's share.
func planMemory(memLimit int64, stateLimit int64, stateGiven bool, detect func() (int64, string)) memoryPlan {
	var p memoryPlan
	switch {
	case memLimit > 0:
		p = memoryPlan{goLimit: memLimit, bound: memLimit, source: "--memory-limit"}
	default:
		if b, src := detect(); b > 0 {
			p = memoryPlan{goLimit: int64(float64(b) * detectedGoShare), bound: b, source: src}
		}
	}
	p.stateLimit = int64(float64(p.bound) * stateShare)
	if stateGiven {
		p.stateLimit = stateLimit
	}
	return p
}

// apply sets the Go runtime's limit, unless GOMEMLIMIT in the environment
// already did and --memory-limit was not given.
func (p memoryPlan) apply() {
	if p.goLimit <= 0 {
		return
	}
	if p.source != "--memory-limit" && debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return // GOMEMLIMIT was set: the user's choice stands
	}
	debug.SetMemoryLimit(p.goLimit)
}
