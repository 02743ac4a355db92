// Package dedup drops replayed input: the rows of an append-only source
// stream whose key was already seen within a window (WITH dedup_key,
// dedup_window, dedup_fpr), as at-least-once producers and re-delivered
// files repeat them.
//
// The operator (Operator, configured by Config) keeps the first row of a
// key and drops every row of the same key less than the window after
// (or, in event time, before) it. The window is in event time when the
// stream declares a WATERMARK — a row is a duplicate if its key was seen
// in a kept row whose event time is less than the window away from its
// own, and what it remembers is freed as the watermark passes — and
// otherwise in processing time of arrival.
//
// What it remembers is split by concern:
//
//   - table.go, the exact set: every kept row's key (encoded by
//     exec/internal/rowkey) and time, in an open-addressing table keyed by
//     exec.HashRows of the key columns (the hash the exchange in front
//     routes by), several entries per key when its rows are further apart
//     than the window;
//   - buckets.go, time buckets a window/8 wide: each holds the entries of
//     its times, their key bytes and a Bloom filter of their hashes
//     (bits-and-blooms/bloom/v3), sized from the keys the operator sees per
//     bucket for the configured false-positive rate; a bucket the watermark
//     (or the clock) has left a window behind is dropped with its entries,
//     at a cost proportional to the bucket;
//   - operator.go, the per-batch loop: a key that no filter of the buckets
//     within the window may hold is new without an exact lookup; one that
//     a filter may hold is looked up in the exact set;
//   - state.go, checkpoints (exec.Stateful): the exact set is the state,
//     one entry per remembered key in its key group, written
//     incrementally; the filters are rebuilt on Restore.
package dedup
