// Package exec is the contract between eddy's operators and its runtime:
// the Chunk of rows (an Arrow record batch with Z-set row operations) and
// the Control messages that travel in order with the data (watermarks,
// checkpoint barriers, flush markers, end of input); the Operator, Emitter
// and Source interfaces and the small optional interfaces an operator or
// source implements to say what else it is (WatermarkAbsorber,
// ProcessingTimer, Stateful, DeferredSnapshotter, BackgroundSnapshotter,
// GroupMover, BoundedSource, Generator, MessageSource);
// the Env an operator instance runs in and its OperatorMetrics; and the
// hashing of keys into key groups that both the runtime's exchanges and
// the operators' keyed state follow.
//
// The runtime is exec/dataflow, the plan-to-dataflow builder exec/build,
// the operators live in one package per family, the expression kernels in
// exec/expr, the connectors in exec/connector/..., and the engine that
// ties the SQL front end to all of it in exec/engine.
package exec
