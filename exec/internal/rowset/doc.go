// Package rowset keeps the integral of a changelog: the rows it holds, with
// their counts. It is what a materialized view stores and what a pull
// query's Sort and Limit collect before they order and cut.
//
// A Set stores its rows column by column in segments of 8,192 rows, in the
// layout of Arrow arrays (column.go), so that a scan hands out a sealed
// segment's columns as Arrow arrays without copying them (Batches). Rows
// are only ever appended: a row whose count falls to zero stays in place,
// dead, until half the rows of its segment are dead. Then the segment's
// live rows move to the end of the set and it is left empty (compact.go):
// the Apply that made it due pays for the move, at most about as many
// rows as it applied, so a view is compacted a segment at a time as it
// goes, with no pause to copy the whole set.
//
// An append-only input — a view over a stream that never retracts — costs
// a copy of its columns and nothing per row: no hash, no index. The first
// retraction (or an upsert set's first insert) builds the index, an
// open-addressing table (package probe) from the 64-bit hash of each live
// row's key (exec.HashRows: every column when the set has no key) to its
// position; from then on each change hashes its key, finds the rows with
// that key, and compares their columns typed, column by column.
//
// A Set is checkpointed incrementally (state.go): each snapshot writes the
// rows appended since the previous one as one entry and the changed counts
// of older rows as one entry each, so an append-only view's checkpoint
// costs one write per snapshot, not one per row.
package rowset
