// Package badger is eddy's durable storage.DB on Badger v4. One Badger
// database in the data directory holds everything, in three key spaces
// told apart by their first byte:
//
//	k <key>                          catalog KV entries
//	l <stream:8> <seq:8> <chunk:4>   log entries (big-endian numbers)
//	s <job> d <table> <key>          committed operator state
//	s <job> e                        the job's last committed epoch
//	s <job> i <chunk:4>              a large commit in progress (intent)
//
// where <job> and <table> are key-codec strings (storage.AppendString),
// which are self-delimiting, so no job's or table's keys start another's.
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
// State commits are atomic: a commit that fits in one Badger transaction
// is one transaction (data plus epoch marker). A larger one is first
// written as an intent blob; once its chunk 0 is committed, the commit has
// happened, and its mutations are applied with a WriteBatch, after which
// the marker is set and the intent deleted in one transaction. Opening a
// job's state finishes an intent left by a crash and deletes the chunks of
// an intent that never got its chunk 0.
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
