// Package cow keeps the entries that an operator writing its snapshot in
// steps (exec.DeferredSnapshotter) saves by copy-on-write: an entry still
// to be written that the input is about to change is encoded as it was at
// the barrier and kept here, in its key group, for a later step to write.
package cow
