// Package topn holds the incremental Top-N operator: ROW_NUMBER() OVER
// (PARTITION BY ... ORDER BY ...) filtered by rn <= N, which also serves
// ORDER BY ... LIMIT in a continuous query and de-duplication (rn = 1).
// Its output, integrated, is the rows numbered 1..N of every partition of
// its input, with their row number when the query selects it; after each
// chunk it emits the minimal change of those rows.
//
// State: per partition, its rows encoded as order-preserving keys in a
// counted B+tree (exec/internal/ordtree), which gives a row's rank and the
// row at a rank in O(log n). In general every row is kept, so that a
// retraction can promote the next row; over an append-only input only the
// top N rows of a partition are kept, and de-duplication keeps one key per
// partition in a map.
package topn
