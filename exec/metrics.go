package exec

import (
	"sync/atomic"
	"time"
)

// OperatorMetrics are the counters of one operator instance. The runtime
// updates rows, batches and time; stateful operators set the state gauges.
// Fields are atomic so that SHOW and EXPLAIN ANALYZE can read them while the
// operator runs.
type OperatorMetrics struct {
	RowsIn     atomic.Int64
	RowsOut    atomic.Int64
	BatchesIn  atomic.Int64
	BatchesOut atomic.Int64
	// BusyNanos is time spent in the operator's own code.
	BusyNanos atomic.Int64
	// IdleNanos is time the operator's task waited for input.
	IdleNanos atomic.Int64
	// BackpressureNanos is time the operator's task was blocked on output.
	BackpressureNanos atomic.Int64
	// StateKeys and StateBytes describe the operator's state, if any.
	StateKeys  atomic.Int64
	StateBytes atomic.Int64
	// BadRows counts input rows a source skipped as malformed.
	BadRows atomic.Int64
	// LateRows counts rows dropped behind the watermark.
	LateRows atomic.Int64
	// Watermark is the operator's latest watermark (ms since the epoch),
	// 0 before the first.
	Watermark atomic.Int64
}

// AddBusy adds the time elapsed since start to the busy time.
func (m *OperatorMetrics) AddBusy(start time.Time) {
	m.BusyNanos.Add(int64(time.Since(start)))
}
