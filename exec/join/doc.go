// Package join computes the joins of two changelogs: regular equi- and
// cross joins (inner, left, right, full, semi and anti) over inputs that
// insert and retract, lookup joins of a stream against a table, and
// interval and window joins of two append-only streams — or, joined
// inner, of inputs that retract only until the watermark passes a row's
// time (a windowed aggregate's running results).
//
// Its one operator, HashJoin, keeps each side's rows in a row store
// (exec/internal/rowstore), indexed by join key — buckets of row ids in
// flat slices behind an open-addressing index of the keys' hashes
// (exec/internal/probe), no Go object per key or row (rows.go) — and for
// each change on one side emits the change of the join result. Outer, semi and anti joins
// also count each kept row's matches, so that a padded row, or a semi
// join's left row, comes and goes as its matches do. A bucket that is
// retracted from gets a row index (rows.go) so that a retraction does not
// scan its key's rows. The state of a regular join grows with both inputs;
// a lookup join keeps only its table side; a windowed join frees a row
// once the watermark passes the last time a row of the other side could
// match it, and pads an outer join's unmatched rows then (evict.go); a
// retraction before that finds its row and its matches still held.
// HashJoin is exec.Stateful for every kind: one checkpoint entry per kept
// row, in the key group of its join key (state.go, restore.go). At a
// rescale a hash-partitioned join keeps the rows of the key groups it
// still owns in memory and reads only those it gains (exec.GroupMover,
// move.go).
package join
