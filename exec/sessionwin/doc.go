// Package sessionwin computes GROUP BY over SESSION windows: per group
// key, rows whose consecutive event times are less than the gap apart form
// a session, and Agg aggregates each session. Its state is, per group key,
// the open sessions ordered by start, each with one slot in mergeable
// accumulators (so that a row bridging sessions merges them), and a heap
// of the open sessions by window_end, from which a watermark closes them.
// The input must be append-only. Its output is either a running changelog
// of the sessions or, with EmitOnClose, each session once when it closes.
package sessionwin
