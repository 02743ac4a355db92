// Package aggstate holds the state structures of eddy's incremental
// aggregates:
//
//   - BatchGroups numbers the distinct keys of one batch in a small table
//     that stays in cache, so that the state is read once per group a
//     batch touches rather than once per row;
//   - IntGroups and BytesGroups map group keys to dense slots (a bucketed
//     open-addressing table for a single integer-like key, a Go map of
//     encoded keys otherwise), reusing freed slots;
//   - Arena keeps every group's fixed-width state (its row count and the
//     aggregates' counters and sums) as one row of 8-byte words per slot,
//     and Column keeps per-slot values of any type;
//   - Multiset is a per-group ordered multiset of values with counts, what
//     retractable MIN/MAX and DISTINCT keep so that retractions stay exact;
//     IntSets keeps small multisets of integers inside the groups' arena
//     rows and spills larger ones to Multisets.
//
// Everything here is plain typed Go data indexed by slot, grown in chunks
// so that adding a group never copies the others: the state of a group can
// be found, snapshotted and freed without scanning other groups, and no
// operation costs time in proportion to the number of groups held.
package aggstate
