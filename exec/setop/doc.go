// Package setop maintains INTERSECT and EXCEPT, with ALL or DISTINCT,
// incrementally.
//
// The operator (Operator, configured by Config) has two inputs, the left
// (0) and the right (1) operand, of the same column types. It keeps, for
// every distinct row it has seen, the row's count in each input: a and b,
// the sums of the Z-set weights of its changes (an insert adds 1, a
// retraction subtracts 1). The row's multiplicity in the result is a
// function of the two counts (Kind.Mult): INTERSECT ALL min(a, b),
// INTERSECT 1 when both are positive, EXCEPT ALL max(a − b, 0), EXCEPT 1
// when a is positive and b zero. For every input row it emits the change
// of its row's multiplicity — as many inserts or deletes of the row as the
// multiplicity rose or fell — so a batch costs the rows it touches, not the
// rows held. NULLs compare equal, as in DISTINCT and GROUP BY.
//
// The rows are keyed by all their columns: a hash exchange on every column
// feeds each instance the rows of its key groups, from both inputs.
//
// What it keeps is split by concern:
//
//   - table.go, the counts: an open-addressing table keyed by the row's
//     hash (exec.HashRows of all its columns, the hash the exchange routes
//     by), each entry holding the row's two counts and its encoding
//     (exec/internal/rowkey) in an arena; nothing allocates per row;
//   - operator.go, the per-batch loop and the output;
//   - state.go, checkpoints (exec.Stateful): one entry per row held, in
//     the key group of its hash, its key the row's encoding and its value
//     the two counts, written incrementally (only the rows changed since
//     the last checkpoint) and restorable at any parallelism.
package setop
