// Package badger is eddy's durable storage.DB on Badger v4. One Badger
// database in the data directory holds everything, in three key spaces
// told apart by their first byte:
//
//	k <key>                          catalog KV entries
//	l <stream:8> <seq:8> <chunk:4>   log entries (big-endian numbers)
//	s <job> m                        the manifest of the job's last checkpoint
//	s <job> p                        the manifest of the one before (kept for Rollback)
//	s <job> r <run:8> i <chunk:4>    the index (a blob) of one of the job's state runs
//	s <job> r <run:8> b <block:4>    a block of that run, in an in-memory database
//	s <job> x                        a drop of the job's state in progress
//
// where <job> is a key-codec string (storage.AppendString), which is
// self-delimiting, so no job's keys start another's. The layout before
// runs (s <job> d <table> <key> per entry, s <job> e, and s <job> i for a
// large commit's intent) is converted when a job's state is opened
// (state_legacy.go).
// A stream's entries scan in seq order, and Drop deletes the stream's
// prefix: in one transaction for a small log, with Badger's DropPrefix for
// a large one (which pauses other writes while it runs; they wait rather
// than fail).
//
// Values above 512 KiB are split into chunks under consecutive chunk
// numbers; chunk 0 holds the chunk count and total length and is written
// last, in its own transaction, so a value appears whole or not at all
// (see putBlob). Log entries of 4,096 rows (about 200 KB) take one chunk;
// 100K-row batches take several.
//
// State commits are atomic: a commit writes the epoch's mutations as a
// sorted run (storage/internal/runs: sealed blocks and an index) — its
// blocks into a file of their own, runs/<hash of the job>/<run>.run,
// synced with its directory entry (state_files.go; an in-memory database,
// and state written before run files, keep blocks in Badger), its index
// as a blob — then the new manifest, naming it and where its blocks are,
// and the previous manifest in one transaction: that transaction is the
// commit point. Runs neither
// manifest names (a commit a crash interrupted, runs compacted away) are
// deleted, at the latest when the job's state is opened next; a job's run
// directory goes with DropState, or when the database opens if a crash
// left it. Reads merge
// the manifest's runs; compaction (state_compact.go) keeps them few.
//
// Writes are synchronous (fsync before returning), so KV puts, log appends
// and state commits are durable when they return. An eddy.lock file held
// with flock keeps a second process, or a second Open in this one, out of
// the directory. Badger's logging goes to Options.Logger at warning level
// and above, or nowhere.
//
// Open verifies an existing directory before Badger touches it (check.go),
// because Badger handles damage badly: a truncated table panics in a
// goroutine of its own, a missing MANIFEST makes it start an empty
// database and delete every table, a table failing its checksum is
// skipped, and a value log or write-ahead log is cut at its first bad
// record. Every table is read and checked against its checksums, every
// value log and write-ahead log record against its own, the MANIFEST is
// replayed, and every value pointer is resolved; the small files are
// checked for what would make Badger fail or panic. Damage is a
// *storage.CorruptionError naming the file and what it holds, and nothing
// is changed. A directory that was not closed cleanly (Badger's LOCK file
// or a write-ahead log is still there) may end its logs in one partly
// written record and may hold tables no change to the MANIFEST listed yet,
// as a crash leaves them; anything else is damage. An identity file,
// EDDY, written when the directory is created, tells a new directory from
// one that lost its database files. Badger also swallows failures to read
// a value from the value log (returning an empty value); every read here
// turns that into an error wrapping storage.ErrCorrupt (values.go).
package badger
