// Package build turns a physical plan (optimizer/physical) into a dataflow
// (exec/dataflow.GraphSpec): a new stage starts at every source and every
// exchange, everything else fuses into its input's stage as a chain, and
// each physical node becomes the operator that runs it. It is the only
// package of exec that imports the optimizer's physical plan, and the
// only one that knows every operator family.
package build
