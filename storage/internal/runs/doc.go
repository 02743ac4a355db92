// Package runs encodes a job's committed operator state as sorted runs:
// the mutations of one or more checkpoints, in key order, cut into blocks
// of about BlockSize bytes, each sealed with a checksum that names its
// run and position, and an index holding each block's first key. A
// checkpoint writes one run of what changed (a few large sequential
// values rather than a point write per key); reads merge the runs, the
// newest deciding a key; compaction merges runs into one and drops what
// newer runs replaced or deleted.
//
// The package knows nothing of where blocks live: the Badger backend
// (storage/badger) stores them under keys of its own and hands them back
// through a Fetch function.
package runs
