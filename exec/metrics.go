package exec

import (
	"sync"
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
	// StateArrowBytes is, for an operator that keeps rows, what its rows
	// would take as Arrow arrays (0: not known): what StateBytes, which
	// also counts indexes and bookkeeping, compares with.
	StateArrowBytes atomic.Int64
	// BadRows counts input rows a source skipped as malformed.
	BadRows atomic.Int64
	// LateRows counts rows dropped behind the watermark.
	LateRows atomic.Int64
	// ShedRows counts, at a source, the rows dropped by load shedding.
	ShedRows atomic.Int64
	// ShedWindows counts, at a source that sheds whole windows, the
	// windows it dropped: each once per job, at the instance that dropped
	// its first row.
	ShedWindows atomic.Int64
	// Watermark is the operator's latest watermark (ms since the epoch),
	// 0 before the first.
	Watermark atomic.Int64
	// InputRead and InputBacklog are, for a source, how much input it has
	// read since it opened and how much more waits to be read, in a unit
	// of its own (log entries, file bytes, generated events that are due):
	// progress reports and load shedding estimate the rows waiting from
	// their ratio to RowsIn (see EstimateBacklog). Both stay 0 in a source
	// that does not know.
	InputRead, InputBacklog atomic.Int64

	// note is the operator's latest note for people (SetNote).
	note atomic.Pointer[string]

	// own are the operator's own counters (Counter), in the order it
	// asked for them.
	ownMu sync.Mutex
	own   []*namedCounter
}

// namedCounter is one of an operator's own counters.
type namedCounter struct {
	name string
	n    atomic.Int64
}

// Count is the value of one of an operator's own counters.
type Count struct {
	Name  string
	Value int64
}

// Counter returns the operator's own counter named name, creating it at
// zero: a figure of the operator's beyond the common ones (a
// de-duplication's duplicates dropped), which EXPLAIN ANALYZE shows. An
// operator asks for its counters in Open and adds to them per batch.
func (m *OperatorMetrics) Counter(name string) *atomic.Int64 {
	m.ownMu.Lock()
	defer m.ownMu.Unlock()
	for _, c := range m.own {
		if c.name == name {
			return &c.n
		}
	}
	c := &namedCounter{name: name}
	m.own = append(m.own, c)
	return &c.n
}

// Counts returns the operator's own counters, in the order they were
// created. It may be called while the operator runs.
func (m *OperatorMetrics) Counts() []Count {
	m.ownMu.Lock()
	defer m.ownMu.Unlock()
	out := make([]Count, len(m.own))
	for i, c := range m.own {
		out[i] = Count{Name: c.name, Value: c.n.Load()}
	}
	return out
}

// AddBusy adds the time elapsed since start to the busy time.
func (m *OperatorMetrics) AddBusy(start time.Time) {
	m.BusyNanos.Add(int64(time.Since(start)))
}

// ReportInput records a source's progress through its input: read units
// since it opened, backlog units known to follow.
func (m *OperatorMetrics) ReportInput(read, backlog int64) {
	m.InputRead.Store(max(read, 0))
	m.InputBacklog.Store(max(backlog, 0))
}

// EstimateBacklog returns the rows a source instance with these metrics
// still has to read, estimated from the rows it produced per unit of input
// so far (one row per unit before it has read any): 0 when it knows of no
// more input.
func (m *OperatorMetrics) EstimateBacklog() int64 {
	backlog := m.InputBacklog.Load()
	if backlog == 0 {
		return 0
	}
	read, rows := m.InputRead.Load(), m.RowsIn.Load()
	if read == 0 || rows == 0 {
		return backlog
	}
	return int64(float64(backlog) * float64(rows) / float64(read))
}

// SetNote records a sentence about what the operator did last that EXPLAIN
// ANALYZE shows beside its figures (a filter re-ranked at run time, and
// why).
func (m *OperatorMetrics) SetNote(note string) { m.note.Store(&note) }

// Note returns the operator's latest note ("" if none).
func (m *OperatorMetrics) Note() string {
	if n := m.note.Load(); n != nil {
		return *n
	}
	return ""
}
