// Package expr evaluates typed scalar expressions (plan.Expr) over Arrow
// record batches, a column at a time.
//
// Compile turns an expression whose columns are bound to input ordinals
// (*plan.InputRef) into a tree of nodes once; Eval and Select then run it
// per batch. Each node produces a vector: a view of an input column's Arrow
// buffers (no copy), or typed Go slices in scratch memory the node reuses
// from batch to batch, so the steady state allocates nothing but the result
// array. Kernels are tight loops over []int64, []float64, []bool... with
// fast paths for columns without NULLs and for a column against a constant;
// constant subtrees are folded at compile time.
//
// Semantics follow MySQL unless noted:
//
//   - NULL propagates through operators and functions; AND, OR and NOT use
//     three-valued logic; IS NULL and <=> are never NULL; x IN (...) is
//     NULL when nothing matches and x or a list element is NULL.
//   - Integer +, -, * and DIV fail on overflow ("BIGINT value is out of
//     range in '...'"); DECIMAL arithmetic is exact in decimal128 and fails
//     past the result type's precision (at most 38 digits); DOUBLE
//     arithmetic is IEEE. Division and modulo by zero give NULL.
//   - DATE and TIMESTAMP values lie in the years 0000 to 9999
//     (types.MinTimestamp to types.MaxTimestamp): date arithmetic,
//     FROM_UNIXTIME and rounding casts whose result falls outside fail
//     ("TIMESTAMP value is out of range in '...'"), as integer overflow does.
//   - Strings compare bytewise and case-sensitively (binary collation, as
//     in Flink, RisingWave and PostgreSQL's C collation), and LIKE matches
//     bytewise too, with _ matching one UTF-8 character. This differs from
//     MySQL's default case-insensitive collation on purpose: it is cheap,
//     predictable and stable across versions.
//   - CASE (and IF, COALESCE, IFNULL) evaluate each branch only over the
//     rows that take it, so a guarded division or cast does not fail on the
//     rows the guard excludes. AND and OR evaluate all arguments over the
//     batch and, only when a later argument fails on some row, evaluate
//     again lazily so that earlier arguments guard later ones. IN compares
//     with its list in order and stops at a match. A constant that fails
//     (CAST('x' AS INT)) fails only the rows that evaluate it, and nothing
//     fails over a batch of no rows.
//   - Casts: DOUBLE and DECIMAL to integers round half away from zero;
//     narrowing integer casts check the target's range; strings are trimmed
//     and parsed strictly ("cannot cast 'abc' to BIGINT"), numbers exactly
//     (digit by digit, not through a double); a DOUBLE becomes a DECIMAL by
//     its shortest decimal form and a DECIMAL the nearest DOUBLE; BOOLEAN
//     renders as true/false; TIMESTAMP(fsp) renders with fsp fractional
//     digits and a cast to a smaller fsp rounds half up (as MySQL stores a
//     value).
//   - ROUND rounds half away from zero; a DOUBLE by its shortest decimal
//     form (the digits eddy shows: ROUND(2.675, 2) is 2.68), NaN and ±Inf
//     staying as they are.
//
// Failures on a row's values are *RowError values (OutOfRange, BadCast,
// BadArgument) that name the position of the expression that failed when
// the plan knows it (plan.Pos, set by the binder): "BIGINT value is out of
// range in '9223372036854775807 + 1' at 2:8". The position is attached when
// the error is built, never per row. Unsupported expressions fail at Compile
// with errors wrapping ErrNotSupported. A compiled Expr keeps scratch memory and is not
// safe for concurrent use.
package expr
