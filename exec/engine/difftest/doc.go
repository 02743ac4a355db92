// Package difftest is eddy's correctness oracle (DESIGN.md, "Correctness
// oracle"): on bounded inputs without late rows, the final result of every
// continuous query must equal the result of the same query run as a batch
// by an independent engine, SQLite (the pure-Go modernc.org/sqlite).
//
// A deterministic generator (Generate) makes a few sources: a Nexmark-like
// bid stream, person and auction tables upserted in every round, and a
// stream of awkward values (NULLs, skewed keys, multi-byte text, times
// before the epoch). The corpus (testdata/oracle/*.sql, read by
// LoadCorpus; its README says how to add an entry) holds entries of one or
// more materialized views, with the derived streams and continuous inserts
// they read. For each entry, RunEddy runs the statements on a fresh
// in-memory engine before any data arrives, feeds the rounds in several
// INSERTs with FLUSH between some (and the entry's own UPDATE, DELETE and
// INSERT statements on tables after the rounds they name), and reads
// every view; RunSQLite loads the same rows into SQLite (all rows of a
// stream, the latest row per key of a table, replayed round by round with
// the entry's statements when it has some) and runs each query there,
// either translated from eddy's
// dialect by Translate or hand-written in the entry for what the
// translator cannot express. Compare checks the two results as multisets,
// with values normalized by SQL.md's rules: doubles and decimals within a
// relative 1e-9 or equal at three decimals, times and dates as epoch
// milliseconds, booleans as 0/1.
//
// Entries may need features eddy is still growing (joins, ...), listed in
// Features; TestOracle runs the entries whose features are all in its
// supported list, at parallelism 1, 2 and 4, and skips the others, saying
// what they wait for. The flags -oracle.all (run the waiting entries too),
// -oracle.seed and -oracle.scale (other and more data) help look for bugs.
package difftest
