// Package sparse finds where a sparse file holds data: Badger's checks
// skip the zeros of a preallocated log file, and its damage tests copy
// files without filling their holes.
package sparse
