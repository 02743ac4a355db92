// Package over computes window aggregates, AGG(x) OVER (PARTITION BY ..
// ORDER BY .. frame), incrementally: Agg outputs every input row with
// COUNT, SUM, AVG, MIN or MAX over its frame (ROWS and GROUPS frames of
// any bounds, RANGE frames from or to the current row's peers or with
// offsets over one column, or the whole partition) and the window
// functions ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE,
// LAG, LEAD, FIRST_VALUE, LAST_VALUE and NTH_VALUE (funcs.go), and after
// each chunk emits the changes of the output rows whose results changed. Its state
// is, per partition, the partition's distinct rows in a counted ordered
// tree (exec/internal/ordtree) with their values in a row store
// (exec/internal/rowstore), so that a change reads only the frames it
// touches.
package over
