// Package window assigns rows to time windows: Assign is the TUMBLE, HOP
// and CUMULATE table function, which emits each input row once per window
// its event time falls in, with the window's window_start and window_end.
// Windows are aligned to the Unix epoch. The operator is linear and keeps
// no state between chunks: a retraction retracts the row from each of its
// windows, and watermarks pass through unchanged. SESSION windows, which
// depend on other rows, are computed by package sessionwin.
package window
