// Package statecore implements storage.StateStore over a Backend that holds
// the committed state. It owns what both storage implementations must do
// alike: buffering writes in memory until Commit, reads that merge the
// committed data with the buffered writes, table isolation by key prefix,
// epoch checks, and letting writes continue while a commit is written.
//
// Buffered writes live in overlays. The live overlay takes new writes; a
// Commit freezes it (a new live overlay takes the writes of the next epoch),
// turns it into a list of mutations, has the backend apply them atomically
// and drops it. Reads consult the live overlay, then the frozen one, then
// the backend.
//
// An overlay is a log: a write appends its key and value to the last of a
// list of byte chunks (a new, larger one when it is full, so no byte is
// copied twice) and a 16-byte record to a slice, and allocates nothing
// else, since a checkpoint writes every changed entry on the path that
// holds up the job's input. Reads, rare before the commit, build an index the first
// time they need one; Commit sorts the log (overlay_sort.go) to give each
// key's last write once, in key order.
package statecore
