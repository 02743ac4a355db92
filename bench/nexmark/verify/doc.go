// Package verify checks the final results of the Nexmark queries
// (bench/nexmark/queries/q0.sql … q22.sql) against an independent evaluation,
// as issue 5 asks: on a fixed small run, each query's result in eddy must
// equal the result of the same query run as a batch by SQLite over the
// same events. The package is only its test, TestNexmarkVerified:
//
//	go test ./bench/nexmark/verify/ -v
//
// # The run
//
// The streams person, auction and bid are made as `eddy bench nexmark`
// makes them (every column, watermark date_time - 4 s, the nexmark
// connector) over a global sequence of 10,000 events (200 persons, 600
// auctions, 9,200 bids) with a fixed seed, two differences aside: events
// are 10 ms apart (first_event_rate = 100) rather than 0.1 ms, so that the
// run covers 100 s of event time (ten 10-second windows, several HOP and
// SESSION windows) and no two events share a timestamp; and the base time
// is 2015-07-15 23:59:30, so that the run crosses midnight and the per-day
// queries (q15–q17) and q10's partitions see two days.
//
// # eddy's side
//
// A query file's CREATE SINK qN AS SELECT … WITH (…) becomes CREATE
// MATERIALIZED VIEW qN AS SELECT … (its other statements, q13's table,
// stay), on a new in-memory engine. Each statement is followed by FLUSH,
// which returns once the bounded streams are read to their end and every
// view reflects them; q13's table is then loaded before its lookup join
// starts. The view is read with SELECT * FROM qN. Each query runs at
// parallelism 1 and 3: the result must not depend on it.
//
// # The independent side
//
// The events are dumped by file sinks (one CSV file per stream, with a
// header), read back with Go's encoding/csv, and loaded into SQLite by
// difftest.OpenSQLite (times as epoch milliseconds). The query runs there
// either translated from eddy's text by difftest.Translate (window table
// functions, DATE_FORMAT, EXTRACT, intervals …) or, where the translator
// cannot express it, as hand-written SQLite in sqlite/qN.sql: q14
// (COUNT_CHAR), q21 (REGEXP_EXTRACT), q22 (SPLIT_PART) and q12 (below).
// difftest.Compare compares the two results as multisets, doubles and
// decimals within a relative 1e-9.
//
// # Special cases
//
//   - A query eddy cannot run yet (its error says "not supported yet" or
//     that a plan node has no runtime; q6 while its OVER window is being
//     built) is skipped with the error as the reason; once it runs it is
//     verified like the others.
//   - q10 is also run as written, a file sink partitioned by dt and hm: its
//     files must be dt=…/hm=…/part-0.csv with ':' escaped as %3A, hold only
//     their partition's rows, and hold SQLite's result together.
//   - q12 windows processing time (PROCTIME()), so which window a bid falls
//     in depends on when eddy read it, and the result is not reproducible.
//     What is: each bid is counted in exactly one window. The test checks
//     that every window is 10 s long and aligned to 10 s, and that summing
//     bid_count per bidder gives SQLite's count of bids per bidder
//     (sqlite/q12.sql).
//   - ROW_NUMBER() has one right answer only without ties in its ORDER BY.
//     For q6, q9 and q18 the test first checks, in SQLite, that the run has
//     none (its timestamps are distinct; no auction's highest bid in q6's
//     range is tied), so a seed that breaks this fails loudly rather than
//     flakily. q19 orders bids by price alone and the run has ties at the
//     tenth rank; it is checked allowing any choice among equal prices:
//     (auction, price, rank_number) must equal SQLite's and every row must
//     be a distinct bid of the run.
//
// # RisingWave's end-to-end fixture
//
// NEXMARK.md §4.1 quotes golden results of RisingWave's e2e tests (q4, q5,
// q7, q8). They cannot be reproduced here: their input is a hand-frozen,
// curated set of rows (about 50 bids a second apart) kept as INSERT
// statements in RisingWave's repository, which NEXMARK.md does not carry,
// and it was produced by nexmark-rs, whose values (a different PRNG and
// draw order, lower-cased names and states, fixed-length strings) no run
// of eddy's generator matches (NEXMARK.md §1.9–1.10). Some of RisingWave's
// query texts also differ from ours (q2's constants, q3's lower-case
// states). SQLite's evaluation of the same run plays the fixture's part:
// an expected result computed independently of eddy.
package verify
