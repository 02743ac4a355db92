package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/eddysql/eddy/internal/kvlog"
)

// DB is one storage instance: the catalog's key-value store, the stream
// logs and the jobs' state stores. Every method is safe for concurrent use.
// After Close every operation returns an error wrapping ErrClosed.
type DB interface {
	// KV returns the key-value store the catalog persists its objects in.
	KV() KV
	// Log returns the stream logs.
	Log() Log
	// State opens the state store of job. A job's store may be open only
	// once at a time; a second State call before Close fails with
	// ErrAlreadyOpen. Reopening after Close sees the committed state only,
	// as a restarted process would.
	State(job string) (StateStore, error)
	// DropState deletes job's state store entirely: every table and every
	// committed epoch, so that a later State(job) opens an empty store
	// whose Recover returns 0. It is atomic, also across a crash: reopened
	// afterwards, the job has either its old state or none. It fails with
	// an error wrapping ErrAlreadyOpen while job's store is open (Close it
	// first); dropping a job that has no state is not an error.
	DropState(job string) error
	// Close waits for the operations in flight, wakes every Log.Wait with
	// ErrClosed and releases the storage. It is idempotent. A Read or Scan
	// whose callback is running is in flight, so stop those first.
	Close() error
}

// KV is a durable key-value store. It has the method set of catalog.Store.
// Put and Delete are durable when they return.
type KV interface {
	// Get returns a copy of the value stored under key.
	Get(key []byte) (val []byte, ok bool, err error)
	// Put stores val under key durably; it does not keep key or val.
	Put(key, val []byte) error
	// Delete removes key durably; deleting a missing key is not an error.
	Delete(key []byte) error
	// Scan calls fn for every key with the prefix, in key order, over a
	// snapshot taken when Scan starts. key and val are valid only until fn
	// returns. An error from fn stops the scan and is returned as is.
	Scan(prefix []byte, fn func(key, val []byte) error) error
}

// Log holds the append-only logs of streams, identified by number. Entries
// are Arrow record batches numbered 0, 1, 2, ... per stream. Appends to one
// stream are serialized; appends to different streams, reads and waits may
// run concurrently.
type Log interface {
	// Append durably appends batch to stream's log and returns its sequence
	// number. The caller keeps its reference to batch: Append encodes it
	// before returning and does not retain it. Batches must be flat (no
	// nested or dictionary columns); others fail with ErrUnsupportedType.
	Append(stream uint64, batch arrow.RecordBatch) (seq uint64, err error)

	// AppendMarked appends batch as Append does and, in the same atomic
	// write, sets the key-value store's key (as KV.Put would) to val: after
	// a crash both are there or neither is. A writer that must not append
	// twice records in val how far it has appended.
	AppendMarked(stream uint64, batch arrow.RecordBatch, key, val []byte) (seq uint64, err error)

	// Read calls fn, in order, for the entries with from <= seq < to that
	// exist when Read starts (to may exceed End; math.MaxUint64 reads to
	// the end). Each batch is decoded with schema into buffers from alloc.
	// fn borrows the batch: Read releases it when fn returns, so fn must
	// Retain it to keep it. Read returns the sequence number to read next:
	// one past the last entry fn accepted. An error from fn stops the read
	// and is returned as is, with next the seq fn failed on. An entry that
	// does not decode is a *CorruptEntryError naming stream and seq.
	Read(ctx context.Context, stream uint64, from, to uint64, schema *arrow.Schema,
		alloc memory.Allocator, fn func(seq uint64, batch arrow.RecordBatch) error) (next uint64, err error)

	// End returns the sequence number the next Append to stream will get,
	// the high-water mark: entries 0 to End-1 are readable.
	End(stream uint64) (uint64, error)

	// Wait returns nil once End(stream) > after, ctx.Err() when ctx is done
	// first, and an error wrapping ErrClosed when the DB closes.
	Wait(ctx context.Context, stream uint64, after uint64) error

	// Drop deletes stream's whole log; its End is 0 again afterwards. A
	// Read running concurrently may fail with ErrDropped.
	Drop(stream uint64) error
}

// StateStore is the operator state of one job: named tables whose writes
// are buffered in memory and made durable together, atomically, by Commit.
// It is safe for concurrent use; writes may continue while a Commit runs
// (they belong to the next epoch).
type StateStore interface {
	// Table returns the table named name, creating it on first use. Tables
	// are isolated from each other; the same name gives the same table.
	Table(name string, opts TableOptions) (StateTable, error)
	// Commit atomically makes all writes since the last commit durable,
	// marked with epoch, which must be greater than the last committed
	// epoch (ErrStaleEpoch otherwise). If it fails, the writes stay
	// buffered for the next attempt.
	Commit(ctx context.Context, epoch uint64) error
	// Recover discards the writes since the last commit and returns the
	// last committed epoch (0 if none).
	Recover(ctx context.Context) (epoch uint64, err error)
	// Rollback discards the last committed checkpoint (and the writes
	// since) and makes the one before it the last, returning its epoch:
	// what a reader does when the last one is damaged. It fails with
	// ErrNoPrevious when the store keeps no earlier checkpoint (one
	// rollback in a row at most; none before the second commit).
	Rollback(ctx context.Context) (epoch uint64, err error)
	// Bytes returns the size of the committed state as stored: the bytes
	// of every committed key and value, a key counted with its table's
	// name as AppendString encodes it, and, in a store that keeps them
	// until it compacts (Badger's), the values replaced and the keys
	// deleted since its last compaction. It is cheap to call.
	Bytes() (int64, error)
	// Close discards uncommitted writes and releases the job's store so it
	// can be opened again. It is idempotent.
	Close() error
}

// TableOptions configures a state table. It has no settings yet; it exists
// so per-table settings (such as a retention hint) can be added without
// changing StateStore.
type TableOptions struct{}

// StateTable is one table of a StateStore: a sorted map from byte keys to
// byte values. Reads see the committed data plus this store's uncommitted
// writes. Keys and values passed in are copied; values returned by Get
// belong to the caller.
type StateTable interface {
	// Get returns the value of key.
	Get(key []byte) (val []byte, ok bool, err error)
	// Put sets key to val.
	Put(key, val []byte) error
	// Delete removes key.
	Delete(key []byte) error
	// WriteLog applies the writes of l, puts and deletions of the table's
	// keys, in order, as Put and Delete would one by one; it copies them
	// and keeps no reference to l. Writers of many entries buffer them in
	// a log and write it whole, taking the store's locks once.
	WriteLog(l *kvlog.Log) error
	// Scan calls fn for each key with the prefix in key order. It sees the
	// table as of the start of Scan; fn may write to the table. k and v are
	// valid only until fn returns. An error from fn is returned as is.
	Scan(prefix []byte, fn func(k, v []byte) error) error
	// ScanRange is Scan over the keys in [lo, hi) rather than a prefix's;
	// a nil hi means no upper bound (to the end of the table).
	ScanRange(lo, hi []byte, fn func(k, v []byte) error) error
	// DeleteRange removes the keys in [lo, hi); a nil hi means no upper
	// bound (to the end of the table).
	DeleteRange(lo, hi []byte) error
}

// Errors that callers branch on. They are wrapped with details; test for
// them with errors.Is.
var (
	// ErrClosed is returned by operations on a closed DB or StateStore.
	ErrClosed = errors.New("storage: closed")
	// ErrInUse is returned by Open when another process (or another Open in
	// this one) holds the data directory.
	ErrInUse = errors.New("in use by another eddy process")
	// ErrAlreadyOpen is returned by DB.State and DB.DropState for a job
	// whose store is open (or, transiently, is being dropped).
	ErrAlreadyOpen = errors.New("storage: state store is already open")
	// ErrStaleEpoch is returned by Commit for an epoch not after the last
	// committed one.
	ErrStaleEpoch = errors.New("storage: stale epoch")
	// ErrNoPrevious is returned by Rollback when the store keeps no
	// checkpoint before its last.
	ErrNoPrevious = errors.New("storage: no earlier checkpoint is kept")
	// ErrDropped is returned by a Read that lost its stream to a Drop.
	ErrDropped = errors.New("storage: stream dropped")
	// ErrUnsupportedType is returned by EncodeBatch (and Log.Append) for a
	// column type the batch codec cannot encode.
	ErrUnsupportedType = errors.New("storage: unsupported column type")
	// ErrTooLarge is returned for a key or value longer than the store
	// accepts.
	ErrTooLarge = errors.New("storage: too large")
	// ErrCorrupt is matched (errors.Is) by every error about damaged
	// stored data, including *CorruptEntryError and *CorruptionError.
	ErrCorrupt = errors.New("storage: corrupt data")
)

// CorruptEntryError reports a log entry that cannot be read back: damaged
// bytes, a missing entry or chunk, or a batch that does not fit the schema
// it is read with.
type CorruptEntryError struct {
	Stream, Seq uint64
	Err         error
}

func (e *CorruptEntryError) Error() string {
	return fmt.Sprintf("storage: stream %d entry %d is unreadable: %v", e.Stream, e.Seq, e.Err)
}

// Unwrap returns the underlying error.
func (e *CorruptEntryError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrCorrupt) true for a *CorruptEntryError.
func (e *CorruptEntryError) Is(target error) bool { return target == ErrCorrupt }
