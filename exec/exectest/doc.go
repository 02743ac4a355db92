// Package exectest is the one harness of eddy's operator tests: chunks
// written as text, a collector that checks the shape of an operator's
// changelog and integrates it, a brute-force integral of the input for
// oracles to recompute results from, a step runner that feeds chunks and
// control messages and compares each step's output, a scripted source for
// runtime tests, a source that replays prepared batches, a counting sink
// and Drain (which reads a source to its end) for runtime and connector
// tests and benchmarks, and a checked allocator that fails a test which
// leaks Arrow buffers.
//
// A chunk's text form is a header line of SQL type names ("bigint varchar
// decimal(10,2) timestamp(3) double boolean null"), then one line per row:
// its op (+I, -D, -U, +U) and its values separated by spaces. NULL is
// NULL, two apostrophes the empty string, a timestamp either a count of
// milliseconds since the epoch or YYYY-MM-DDTHH:MM:SS[.fff]. A chunk of
// inserts only has nil ops, as sources emit them.
package exectest
