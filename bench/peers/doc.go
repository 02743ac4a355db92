// Command peers compares eddy with DuckDB on the same data: it generates
// a JSON-lines file of bids (and a small auctions table), runs four
// queries on both engines — a filter, a 10-second tumbling count, a join
// with the table and a top 10 by price — and prints each engine's events
// per second and the ratio eddy/DuckDB.
//
// eddy is measured as a whole `eddy exec` process that creates a file
// stream and a materialized view over it, waits with FLUSH until the file
// has been read to its end and the view holds every row, and reads a
// check over the view. DuckDB is measured in-process, as CREATE TABLE v
// AS <query> over read_json in a new in-memory database. Both engines then
// compute the same check over their result (its row count and sums of
// some of its columns); the run fails if they disagree.
//
// Usage:
//
//	cd bench/peers && go run . [-rows N] [-runs 3] [-parallelism P] [-queries filter,tumble,join,topn]
//
// The command lives in a module of its own so that DuckDB, a cgo
// dependency, stays out of eddy's module: the main module's `go test
// ./...` does not build it. It builds the eddy binary from the
// repository it is in (or runs the one -eddy names).
package main
