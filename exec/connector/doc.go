// Package connector is the parent of eddy's connectors, one sub-package per
// connector named in a stream's or sink's WITH (connector = '...') clause
// (SQL.md, "Connectors"). A source connector implements exec.Source and is
// built from the object's columns and WITH options by the sub-package's
// FromOptions and New; the runtime drives it (Open, Next, Wait, Close).
//
//	file      CSV and JSON-lines files, bounded or followed (tail -f)
//	fileroot  the root directory file sources and sinks are confined to
package connector
