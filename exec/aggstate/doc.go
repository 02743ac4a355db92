// Package aggstate holds the state structures of eddy's incremental
// aggregates: Multiset, a per-group ordered multiset of values with counts
// (what MIN/MAX and DISTINCT keep so that retractions stay exact), and the
// group tables that map group keys to dense slots (IntGroups for a single
// integer-like key, BytesGroups for encoded keys), with freed slots reused.
//
// Everything here is plain typed Go data indexed by slot, so the aggregate
// state of a group can be found, snapshotted and freed without scanning
// other groups.
package aggstate
