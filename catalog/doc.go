// Package catalog owns eddy's named objects — streams, tables, materialized
// views and sinks — with their columns (SQL types that map onto an Arrow
// schema), connector options, watermark, defining query and dependencies,
// and for sources the traits their connector gives them (SourceTraits,
// which the planner and the optimizer read; the catalog asks its
// Describer for them and never stores them).
// The catalog persists every object through a KV store so that a restart
// finds them all again, and it refuses to drop an object others depend on.
// Stored values carry a checksum (seal.go); an entry that fails it, or does
// not describe a valid object, keeps the catalog from opening with a
// *storage.CorruptionError naming the entry.
package catalog
