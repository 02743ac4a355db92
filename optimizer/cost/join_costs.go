package cost

// Per-row costs of moving rows between stages and keeping them in a join's
// state, in nanoseconds on this project's machine (2 cores), measured by
//
//	go test ./exec -run XXX -bench BenchmarkJoinCosts -count 5 -cpu 1
//
// (medians; docs/benchmarks.md). Forwarding and broadcasting hand batches
// over without copying, so their cost per row is nearly nothing; a hash
// exchange hashes, partitions and copies each row; a join inserts each row
// of a side into its row store and key index.
const (
	ShuffleRow   = 39.0
	ForwardRow   = 0.2
	BroadcastRow = 0.1 // per replica
	InsertRow    = 700.0
)

// Per-row costs of aggregating, in the same units: a row of a hash
// aggregate's input (hashing its key, finding its group, updating its
// aggregates) and a row of a local aggregate (the same within one batch,
// without keeping state), measured by
//
//	go test ./exec -run XXX -bench BenchmarkAggCosts -count 5 -cpu 1
const (
	AggRow      = 60.0
	LocalAggRow = 35.0
)

// SourceRow is the per-row cost of a source's own work (reading and
// decoding its input), in the same units.
const SourceRow = 30.0
