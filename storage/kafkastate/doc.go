// Package kafkastate is a storage.StateStore whose durability is one
// partition of a compacted Kafka topic, for eddy scaled out across
// processes the way Kafka Streams is: a query is split into one task per
// partition, and task p's operator state and source positions live in
// partition p of the query's state topic, so that when the partition is
// reassigned, the process that gets it reads the task's state from Kafka.
//
// # Ownership and fencing
//
// Every owner of a partition opens its Store with the same transactional
// id. Open first initializes the transactional producer, which fences the
// earlier owner (a process that may still think it owns the partition)
// and aborts the transaction it had open; from then on the broker
// refuses that owner's writes, and its next Commit fails with an error
// wrapping ErrFenced. Only then does Open read the partition, from its
// log start offset up to its end as of after the fence, so no commit of
// the earlier owner can land after what Open read. It reads up to the
// high watermark once the last stable offset (read_committed) has
// reached it, so that a transaction the fence is still aborting neither
// ends the read early nor holds it up for good, and it reads with bare
// Fetch requests, decoded by kgo.ProcessFetchPartition, which says how
// far it got past control records and aborted transactions (franz-go's
// consumer drops those silently).
//
// # Record layout
//
// Records are keyed by a kind byte and the key as the store's shared core
// (storage/internal/statecore) holds it: the table's name encoded by
// storage.AppendString (self-delimiting, so no table's keys start
// another's — in place of a length prefix) followed by the key within
// the table. Call that the full key.
//
//	'V' full key                  a key's value: the value itself, or a
//	                              nil value (a tombstone) for a deleted key
//	'C' full key, index (4 bytes) chunk index (>= 1) of a large value
//	'E'                           the epoch marker: the epoch, 8 bytes
//
// All integers are big-endian. Compaction keeps each key's latest record,
// which is its committed value, and removes a deleted key's records once
// the topic's delete.retention.ms has passed.
//
// A value longer than 512 KiB is written in chunks of 512 KiB, so that no
// record nears Kafka's default limit of about 1 MiB, whatever the broker
// and topic settings. Chunks 1 to n-1 go in 'C' records, before the 'V'
// record, which carries chunk 0 and a record header "eddy.chunk" of the
// chunk count (4 bytes), the epoch of the commit (8) and the value's
// length (8); each 'C' record carries a header "eddy.chunk" of the epoch
// (8). A value of one record has no header, so its record's value is the
// value exactly. A later write of the key writes all of its own chunks,
// and tombstones the chunks its earlier value had beyond its own count;
// a deletion tombstones all of them. Compaction therefore keeps exactly
// the chunks of the latest value, and reading checks that every chunk a
// 'V' record names is there with its epoch.
//
// # Commits
//
// Commit(epoch) writes one Kafka transaction: the records of every key
// written since the last commit, and last the epoch marker. The writes
// come as the shared core gives them, in key order, each key's last
// write once (rather than every write in the order made: within one
// transaction only the last write of a key counts), and a DeleteRange
// becomes tombstones for every committed key in its range that no later
// write set again.
//
// The marker goes in a record batch of its own. After EndTxn the store
// reads it back (read_committed, once the last stable offset has passed
// it), and the committed image in memory takes the writes only if it is
// there. That costs a round trip or two per commit, and it is not
// paranoia: franz-go's Flush can return before a record to a topic new
// to the client is sent, and EndTransaction then takes the transaction
// for empty, aborts it and reports success. (The store waits for every
// record's promise rather than for Flush, which avoids that case; the
// check catches whatever else makes a commit an abort.)
//
// A failed commit keeps the writes buffered for the next attempt, as the
// storage contract says, after ending the transaction by aborting it.
// When the EndTxn request itself failed, the transaction may have
// committed nonetheless: the store then reads the partition after its
// last known record, and if it finds the transaction's epoch marker
// there, the commit succeeded. If even that fails, the next Commit or
// Recover tries again first. A fence is final: the error wraps ErrFenced
// and the store refuses everything but Close afterwards. A commit that
// takes longer than the transaction timeout is aborted by the broker,
// which bumps the producer's epoch as a fence would, so it too ends in
// ErrFenced; reopening the store recovers from either.
//
// A commit holds its records in memory until the transaction commits,
// besides the buffered writes: the image then takes the copies.
//
// # No rollback
//
// Compaction keeps only each key's latest value, so a partition holds no
// earlier checkpoint than the last, and Rollback always fails with an
// error wrapping storage.ErrNoPrevious. What Rollback guards against in
// the file-backed stores, a damaged last checkpoint, is Kafka's business
// here: every record batch carries a CRC that reading checks (and the
// brokers replicate the partition). A record that does not decode as the
// layout above is an error wrapping storage.ErrCorrupt that names the
// topic, partition and offset.
//
// # Memory
//
// The committed state lives in memory as well, in a sorted list of small
// immutable blocks: a commit copies the blocks it changes and publishes
// a new list, so reads and scans take no lock and a scan sees the state
// as of when it began. Only one process should write to a partition (its
// owner); records another producer writes are read on the next Open.
package kafkastate
