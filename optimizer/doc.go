// Package optimizer turns a bound logical plan into the physical plan eddy
// runs. It applies the rules of optimizer/rules in the ordered phases of
// phases.go — each phase a bottom-up pass repeated to a fixed point, or
// run once for a searching rule such as ReorderJoins — checks
// the plan's invariants after every rule in tests, records a trace for
// EXPLAIN VERBOSE, and then builds the physical plan (optimizer/physical)
// with its exchanges, parallelism and estimates (optimizer/cost).
package optimizer
