package plan

import "runtime"

// allocBytes returns the bytes f allocates on the heap: what tests of
// cost compare between two sizes of input, independent of the machine's
// load (plantest.AllocBytes, which this package cannot import).
func allocBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
