// Package physical defines eddy's physical plan — the operators the runtime
// instantiates, with column ordinals bound (expressions use plan.InputRef),
// exchanges made explicit (forward, hash, broadcast, single), a parallelism
// per operator and the optimizer's estimates — and builds it from an
// optimized logical plan. Its text form is what EXPLAIN prints.
package physical
