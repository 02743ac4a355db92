package cost

import "math"

// Per-row costs of moving rows between stages and keeping them in a join's
// state, in nanoseconds on this project's machine (2 cores), measured by
//
//	go test ./exec/build -run XXX -bench BenchmarkJoinCosts -count 5 -cpu 1
//
// (medians on a quiet machine, 2026-11-29; docs/benchmarks.md). Forwarding
// and broadcasting hand batches over without copying, so their cost per
// row is nearly nothing; a hash exchange hashes, partitions and copies
// each row; a join inserts each row of a side into its row store and key
// index, at a cost that grows with the state (InsertRowAt).
const (
	ShuffleRow   = 16.5
	ForwardRow   = 0.09
	BroadcastRow = 0.07 // per replica
)

// The insert cost's growth with the state: an insert into a state of up
// to insertSmallRows rows (in cache) costs insertSmall; each doubling of
// the state beyond adds insertPerDoubling (measured at 16K, 64K, 256K and
// 1M rows: 211, 300, 519 and 701 ns).
const (
	insertSmallRows   = 16384
	insertSmall       = 211.0
	insertPerDoubling = 81.7
)

// InsertRowAt is the cost of inserting a row into a join state that will
// hold rows rows: cache misses make a large state's inserts slower.
func InsertRowAt(rows float64) float64 {
	if rows <= insertSmallRows {
		return insertSmall
	}
	return insertSmall + insertPerDoubling*math.Log2(rows/insertSmallRows)
}

// Per-row costs of aggregating, in the same units: a row of a hash
// aggregate's input (hashing its key, finding its group, updating its
// aggregates) and a row of a local aggregate (the same within one batch,
// without keeping state), measured by
//
//	go test ./exec/build -run XXX -bench BenchmarkAggCosts -count 5 -cpu 1
const (
	AggRow      = 19.0
	LocalAggRow = 9.6
)

// SourceRow is the per-row cost of a source's own work (reading and
// decoding its input), in the same units.
const SourceRow = 30.0
