// Package slt runs sqllogictest files against eddy: the end-to-end corpus in
// testdata/slt (TestSLT runs it at parallelism 1, 2 and 4) and `eddy slt`.
//
// Run parses a file, opens a fresh engine on it and runs each record on a
// non-interactive session through the engine's public API only (Open,
// NewSession, Session.Execute, Result, Stream, Close), as DataFusion keeps
// its sqllogictest runner in a crate of its own. It handles `statement ok`,
// `statement error <regex>`, `query <types> [sortmode] [label]` with its
// `----` results, `query error <regex>`, `skipif`/`onlyif`, `control
// sortmode`, `halt` and `restart` (close the engine and reopen it on the
// same data directory); `insert`, `watermark` and `checkpoint` records parse
// but fail as not supported yet. Values are rendered with types.FormatSLT
// and compared as sqllogictest-rs does (whitespace collapsed; rows or
// values sorted for rowsort and valuesort).
//
// A failed record is a Failure in the Report, naming the file, the line and
// the first differing row; an error from Run means the file could not run at
// all.
package slt
