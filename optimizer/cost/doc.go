// Package cost estimates what a plan will cost a streaming engine: rates
// (rows per second) rather than total rows, selectivities, and retained
// state. Statistics come from the catalog when known; otherwise the
// documented defaults of defaults.go apply.
package cost
