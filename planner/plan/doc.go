// Package plan defines eddy's logical plan: typed scalar expressions (Expr), the
// relational operators (Node) that the planner builds and the optimizer
// rewrites, the column metadata they refer to, and the deterministic text form
// used by EXPLAIN, golden tests and optimizer traces.
//
// Plans are immutable: a rewrite builds new nodes with WithInputs or
// WithChildren. Columns are named by stable ColumnIDs allocated in a Metadata;
// ordinals (InputRef) appear only after physical planning binds them.
package plan
