// Package accum holds the accumulators of eddy's aggregates: COUNT, SUM,
// AVG, MIN, MAX, their DISTINCT forms and APPROX_COUNT_DISTINCT, written
// once for every operator family that aggregates, with the rules of which
// aggregate takes which argument and returns which type (Spec.Check) and
// the typed arithmetic of sums (Int128, FloatSum, AddDecimal).
//
// # The interface
//
// An Accumulator is one aggregate call's state for every group of an
// operator, indexed by the group's slot. It is called once per batch,
// never per row, and its implementations are typed loops:
//
//   - Words and Bind: its fixed-width state (counts, sums, extremes, small
//     multisets) is Words() 8-byte words of each group's row in the
//     operator's aggstate.Arena, so that touching a group reads one or two
//     cache lines for all its aggregates; the rest (larger multisets,
//     strings, sketches) is in its own slot-indexed columns (Grow);
//   - Update folds a batch into the state: a Batch numbers the batch's
//     rows by local group (its distinct groups, each with its slot and
//     arena row), so that an accumulator sums the rows per group in dense
//     arrays that stay in cache and then touches each group once; each row
//     carries a weight, +1 for an insert and −1 for a retraction (0 for a
//     NULL argument), so that retractable state stays exact;
//   - Result writes each group's value to a Vector, typed by Kind;
//   - Free, Bytes and Touch free a group, estimate the memory held and
//     prefetch what a batch will read.
//
// Two optional interfaces say what else an accumulator does. A Merger
// merges one group's state into another's, as a SESSION window does when a
// row bridges two sessions: every accumulator of an append-only input
// merges, and so do the retractable sums and counts; the retractable
// MIN/MAX multisets and the sketches do not, as no operator needs them
// to. A Partial computes each group's value over one batch alone, with no
// state, as the first phase of two-phase aggregation does: the
// accumulators of COUNT, SUM, MIN and MAX of an append-only input.
//
// The operator keeps the arena, each group's row count (COUNT(*) reads it)
// and the groups' slots. NewAll makes an operator's accumulators and their
// arena, after header words of its own; Args reads their argument columns
// once per batch; Out turns result Vectors into Arrow columns.
//
// # The families
//
//   - The hash aggregate (exec/agg.HashAgg) keeps a group per GROUP BY key
//     for as long as it has rows, and reads each touched group's result
//     before and after a batch to emit its change.
//   - The local aggregate (exec/agg.LocalAgg, the first phase of two-phase
//     aggregation) computes each group's value over one batch alone
//     (Partial): the same accumulators, folding the batch with the kernels
//     Update folds it with (per local group, in dense arrays), but keeping
//     no state, so that a group costs nothing beyond the batch's arrays.
//   - The SESSION window (exec/sessionwin) keeps a slot per open session,
//     builds a Batch from the sessions a chunk's rows end up in, and merges
//     the sessions a row bridges (Merger).
//   - The window aggregate (exec/over) computes each output row's
//     aggregates over its frame, not per group: from prefix sums of the
//     rows a change reads, and MIN/MAX with a sliding deque over its row
//     store. Its per-frame algorithm has no slot state to share, so it
//     uses no Accumulator; it shares what decides results: Spec.Check
//     (with Features saying it has neither DISTINCT nor
//     APPROX_COUNT_DISTINCT), Int128 for exact integer sums and AVG's
//     rounding, FloatSum for compensated double sums with infinities and
//     NaNs counted apart, and AddDecimal and DecimalSum for decimal sums and
//     their overflow. The same rows give the same bits in every family.
//
// # Snapshots
//
// Checkpoints snapshot and restore state per key group (exec.Stateful).
// An accumulator owns everything of a group's state, inside the arena
// (its words, from Bind) and out of it (its columns), and finds both from
// the slot alone, as Merge does: AppendState appends one slot's state to a
// byte slice, and LoadState reads it back into a fresh slot, so that an
// operator writes one entry per group (its key, its row count and every
// accumulator's state in order) and rebuilds the group from it. The
// encoding (state.go) is compact varints and length-prefixed bytes; a
// restored group gives the same results as the original, bit for bit, and
// goes on giving them under the same updates. Decoding checks what it
// reads and fails with ErrCorruptState, never panics.
package accum
