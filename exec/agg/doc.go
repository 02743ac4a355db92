// Package agg holds grouped aggregation: HashAgg, the incremental hash
// aggregate, and LocalAgg, the first phase of two-phase aggregation.
//
// HashAgg consumes a changelog and emits the changelog of the aggregate
// of its input's integral: COUNT, SUM, AVG, MIN, MAX (with DISTINCT) and
// APPROX_COUNT_DISTINCT per group of its GROUP BY keys, or one row without
// keys. Its state is every group's: a table from group key to a dense slot
// number, an arena of fixed-width words per slot (the row count and each
// aggregate's counts, sums and small MIN/MAX multisets) and slot-indexed
// columns for what varies in size (larger multisets, DISTINCT values,
// strings, sketches). A windowed HashAgg (WindowClose) frees a window's
// groups when the watermark closes it and, under EMIT ON WINDOW CLOSE,
// emits their final rows then.
//
// LocalAgg aggregates each append-only batch by itself into one row of
// partial results per group (counts, sums, minimums and maximums), which
// a hash exchange sends to the final HashAgg; it keeps no state between
// batches.
package agg
