// Package connector defines eddy's connectors, what a stream's, table's or
// sink's WITH (connector = '...') clause names (SQL.md, "Connectors"), and
// the Registry that finds them by name. The engine asks the registry for
// everything a connector's name decides, and never matches names itself.
//
// A Source connector is what a source stream or table reads. It checks the
// WITH options against the columns when the stream is created (an error
// about one option is an OptionError naming it, so the engine can point at
// the option's value), gives the columns of a stream declared without any,
// describes what the options mean for planning as catalog.SourceTraits
// (bounded or not, read in parallel splits or as one, generated rather
// than ingested, an estimate of its rows), and opens an exec.Source for one
// instance of a query's scan, read continuously or as a snapshot.
//
// A Sink connector is what a sink writes to. It checks the options, says
// what they mean for planning (SinkTraits: whether the user demands an
// append-only query, whether someone observes the output change by
// change), and builds the operator that ends the sink's query.
//
// What connectors need from the engine, the file root and where print
// writes, comes in an Env on every call.
//
// The planner and the optimizer may not import exec: they read a source's
// traits from the catalog, which asks the registry for them (its Traits
// method is a catalog.Describer) when an object is created and when the
// catalog is loaded, never from disk.
//
// The sub-packages are the connectors and what they share:
//
//	builtin   the registry of eddy's connectors (and of any SQL.md names
//	          that are not supported yet)
//	file      the file source: CSV and JSON-lines files, bounded or followed
//	nexmark   the nexmark source: the Nexmark benchmark's generator
//	sink      the file, print and blackhole sinks
//	kafka     the Kafka source and sink (exactly once in transactions)
//	fileroot  the root directory file sources and sinks are confined to
//
// The engine's own feeds, INSERT-fed streams and continuous inserts, live
// in its durable log and in package engine (docs/architecture.md,
// "Connectors").
package connector
