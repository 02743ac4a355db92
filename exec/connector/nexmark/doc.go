// Package nexmark is the `nexmark` source connector: it generates the
// persons, auctions and bids of the Nexmark benchmark (NEXMARK.md §1) as
// Arrow record batches, one table per stream (SQL.md, "Connectors").
//
//	CREATE STREAM bid WITH (connector = 'nexmark', table = 'bid', events = '1000000');
//	CREATE STREAM auction (id BIGINT, seller BIGINT, date_time TIMESTAMP(3))
//	WITH (connector = 'nexmark', table = 'auction', rate = '10000', seed = '7');
//
// A stream may declare a subset of its table's columns in any order
// (matched by name, case-insensitively), or none: Columns lists them all.
// A declared column must have the table's type: BIGINT, VARCHAR, or a
// TIMESTAMP of any fsp (values are rounded to it).
// The options are table (required), events (length of the global sequence;
// 0 or absent = unbounded), first_event_rate (event-time spacing, default
// 10,000 events/s), rate (wall-clock throttle across all splits, 0 =
// unthrottled), seed, base_time (default 2015-07-15 00:00:00 UTC),
// batch_size and generate (below); FromOptions validates them and New
// makes the Source.
// Connector is the connector.Source the registry holds: its traits say a
// nexmark stream is generated, splittable, and bounded with events.
//
// # One global sequence
//
// All three tables are views of one global event sequence n = 0, 1, 2, …
// of which every 50 consecutive events are 1 person, 3 auctions and 46
// bids, with ids, foreign keys, hot keys, prices, strings, padding and
// timestamps as the reference generators make them (NEXMARK.md §1.3–1.8,
// §1.11). Event n is stamped base_time + floor(n*1000/first_event_rate) ms,
// in order.
//
// Every event is a pure function of (seed, n): it draws its values from its
// own SplitMix64 generator seeded with mix64(key(seed) ^ n), in a fixed
// order. Channel URLs are pure functions of (seed, channel number), made
// once per channel and cached; row padding ("extra") is a substring of one
// pseudo-random pool per seed, as in the Flink generator. The values do not
// depend on the run, on the parallelism, or on which columns a stream
// declares: an undeclared column's values are still drawn (so the draws of
// the next fields do not shift), only the work of building it is skipped.
//
// # Splits
//
// Instance i of P generates the events of its table's kind in the blocks
// i, i+P, i+2P, … of SplitBlock (4,096) consecutive events (an
// interleaving of blocks, rather than nexmark-rs's of single events or
// Beam's id ranges), so the union of all splits is the same sequence at any
// parallelism, and merging them by event number gives it in order. A
// split's batch covers consecutive events, as at parallelism 1: with
// splits taking every P-th event, a batch of each spanned P times the event
// time, and an aggregate downstream met each group in P times the
// batches and emitted as many more changes (q5's counts: 3.03M at p2
// against 1.47M at p1 over 3M events; 2.01M with blocks). The splits stay
// within a block of event time of each other. A bounded split ends with io.EOF after its
// last event. With a rate, event n is due at Open + n/rate on the wall
// clock: Next returns what is due and exec.ErrCaughtUp when nothing is, and
// Wait sleeps until the split's next event is due.
//
// # Generating what is not read
//
// By default (generate = 'read') a stream builds only its table's events,
// and of them only its declared columns: a query pays for the part of the
// generator it reads. That flatters its figures next to Flink's and
// Feldera's Nexmark sources, which make every event of every kind with
// every column whatever the query reads. With generate = 'all' a split
// walks every event of its share of the global sequence (its blocks):
// its table's events are built with every column, declared or not, and
// the others are built with every column into record batches of their
// own, as the streams of their tables would build them, and released. The
// rows it returns are exactly those of generate = 'read'; only the work
// differs, and it is the whole generator's. generate may also list tables
// ('person, bid'): those tables' events are built and dropped besides the
// stream's own, so that the streams of one query can share the whole
// generator's work among them, each kind built once (eddy bench nexmark
// --generate all). A bounded split builds the events after its table's
// last one before it ends; an unbounded split that never meets an event
// of its table builds none.
//
// # Positions
//
// Source implements exec.Positioned. Its position is the split's next event
// number with what decides the events and the split (table, seed, events,
// first_event_rate, base_time, instance, parallelism and, above one split,
// the block size: a position written when splits took every P-th event
// is refused), in the encoding of
// exec/internal/position; Seek jumps the split to that event in O(1) and
// refuses a position of other options or another split. A throttled source
// resumed at event n schedules from n: n is due at the Seek.
//
// Where the implementations differ (NEXMARK.md §1.10) this one follows
// Beam/Flink: random-length strings with spaces, names in their case,
// ±20 % padding, prices rounded, the hot bidder one person after the hot
// seller, and the bidder id offset once (not Flink's +2000 bug). The
// structure (kinds, ids, keys, timestamps) matches theirs exactly; the random
// values cannot, as no two implementations share a PRNG and draw order
// (NEXMARK.md §1.9).
package nexmark
