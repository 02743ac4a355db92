// Package nexmark runs the Nexmark benchmark (NEXMARK.md) on eddy: each
// query of bench/nexmark/queries (embedded in the binary by package
// queries) over the in-process nexmark generator, into a blackhole sink,
// to completion, measured and compared with the generator alone. It is
// the logic behind `eddy bench nexmark`.
//
// # What runs
//
// The streams person, auction and bid are created with every column of
// their table, a watermark of date_time minus 4 seconds (as the Flink and
// RisingWave suites declare it) and a bounded generator of Config.Events
// events of the global sequence (persons, auctions and bids together, the
// count Nexmark reports use). A query file (LoadQueries) holds only the
// query's statements, typically one CREATE SINK ... WITH (connector =
// 'blackhole'); the FLUSH after them returns once every source has reached
// its end and every row has gone through every continuous query, which is
// the completion point. The baseline (Baseline) drains all three streams,
// every column, into blackhole sinks, with no query work: what the source
// alone costs.
//
// By default (Config.Generate = GenerateRead) only the streams a query
// scans generate, each its own table's events and only the columns the
// query reads (the engine opens a nexmark source with those): q3 and q8,
// which read persons and auctions, never build a bid, q11 builds a bid's
// bidder and time and none of its strings, and so they cost less per
// event than the whole generator does. Flink's and Feldera's Nexmark sources
// make every event of every kind with every column whatever the query
// reads; GenerateAll (--generate all) does the same. Before the run the
// query is planned in an engine of its own to count how often it scans
// each stream (countScans), and the streams it scans get the connector's
// generate option so that between them they build every event of the
// sequence (generateLists): each its own table with every column, and the
// one scanned the fewest times also the tables the query does not read,
// built and dropped. The query sees the same events either way, and
// events are counted the same way (the whole sequence), so the two modes'
// figures compare directly.
//
// # How it is measured
//
// RunOne runs one query in the calling process and measures the wall time
// and the CPU time of the process (getrusage RUSAGE_SELF, user + system)
// from just before the query's first statement to just after FLUSH
// returns, and the process's peak resident set size. Those figures are
// only the query's own when the process runs nothing else, so Run starts
// one child process per query (Options.Command; the eddy binary runs
// itself with a hidden flag), and the child reports with ServeChild: JSON
// lines of progress, then one line with its Figures or its error. A query
// that fails (most often: eddy cannot run it yet) is reported with its
// error and the others still run.
//
// Figures derive cores (CPU seconds per wall second), events per second
// and events per second per core (events per CPU second) from the
// measurements; Run prints them as an aligned table, each next to its
// ratio to the baseline's, or as JSON lines.
package nexmark
