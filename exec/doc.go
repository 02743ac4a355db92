// Package exec is eddy's runtime: a dataflow of push-based operators over
// Arrow record batches (Chunk) with Z-set row operations, control messages
// (watermarks, barriers, flush markers, end of input) in order with the data,
// fused operator chains, bounded channels between stages, and per-operator
// metrics. Operators live in this package, one per file; expression kernels
// in exec/expr; connectors in exec/connector/...; the engine that ties the
// SQL front end to the runtime in exec/engine.
package exec
