// Package storage defines eddy's durable storage: a key-value store for the
// catalog (KV), append-only logs of Arrow batches behind INSERT-fed streams
// and tables (Log), and per-job operator state committed atomically at
// checkpoint epochs (StateStore). It knows nothing about SQL.
//
// DB.DropState deletes a job's whole state store (every table and epoch),
// for a dropped or re-created view or a query that must start over: the
// next State of the job opens an empty store at epoch 0. The drop is
// atomic, also across a crash, and refused with ErrAlreadyOpen while the
// job's store is open.
//
// Two implementations provide the DB interface: storage/badger, durable on
// Badger v4, and storage/mem, in memory for tests, with the same behaviour
// and concurrency semantics. storage/storagetest holds the test suite both
// pass. storage/kafkastate provides a StateStore alone, whose committed
// state is one partition of a compacted Kafka topic.
//
// The package also provides two encodings the implementations share:
//
//   - an order-preserving key codec (AppendInt64, AppendString, ...), whose
//     encodings compare with bytes.Compare in the order of the values they
//     encode, for building state keys out of SQL values;
//   - a batch codec (EncodeBatch, DecodeBatch), a compact columnar encoding
//     of flat Arrow record batches that validates what it decodes, so a
//     damaged entry is an error rather than a panic.
package storage
