package dataflow

import (
	"time"

	"github.com/eddysql/eddy/exec"
)

// OpStats are one operator's figures, summed over its parallel instances:
// what SHOW QUERIES and EXPLAIN ANALYZE report.
type OpStats struct {
	NodeID    int // the physical plan node (0: none)
	Name      string
	Source    bool // the stage's source rather than an operator
	Instances int
	RowsIn    int64
	RowsOut   int64
	// Busy is time in the operator's own code, Backpressure time its task
	// was blocked on output, and Idle the rest of the wall time (waiting
	// for input, or for the operators of its chain): the three sum to
	// Wall, the instances' wall time.
	Busy, Idle, Backpressure, Wall time.Duration
	LateRows, BadRows              int64
	StateKeys, StateBytes          int64
	StateArrowBytes                int64 // exec.Metrics.StateArrowBytes
	// Watermark is the lowest of the instances' watermarks (0: none yet).
	Watermark int64
	// Lag is, for a source, how long its oldest unread input has been
	// waiting (0 when caught up).
	Lag time.Duration
	// Backlog is, for a source, the rows it knows are still to come (in a
	// log, a file, a bounded generator), estimated from the rows it made
	// per unit of input read (exec.OperatorMetrics.EstimateBacklog).
	Backlog int64
	// ShedRows are, for a source, the rows load shedding dropped, and
	// ShedWindows the windows it dropped whole (shed_window.go).
	ShedRows, ShedWindows int64
	// InputKnown says the source reports how far it is through its input
	// (a log, a file, a bounded generator; not a view's changes).
	InputKnown bool
	// Counts are the operator's own counters (exec.OperatorMetrics.Counter),
	// summed by name, in the order the first instance created them.
	Counts []exec.Count
	// Note is an instance's latest note (exec.OperatorMetrics.SetNote);
	// summed, the first instance's that has one.
	Note string
}

// Started returns when the job started.
func (j *Job) Started() time.Time { return j.started }

// Parallelism returns the highest parallelism of the job's stages.
func (j *Job) Parallelism() int {
	p := 1
	for _, sr := range j.stages {
		p = max(p, sr.spec.Parallelism)
	}
	return p
}

// Stats returns the figures of every source and operator of the job, in
// stage order, each summed over its instances. It may be called while the
// job runs.
func (j *Job) Stats() []OpStats {
	per := j.InstanceStats()
	out := make([]OpStats, len(per))
	for i, insts := range per {
		out[i] = SumStats(insts)
	}
	return out
}

// InstanceStats returns the figures of every source and operator of the
// job, in the order of Stats, per parallel instance: InstanceStats()[k][i]
// is instance i of the k-th operator Stats returns, with Instances 1. It
// may be called while the job runs.
func (j *Job) InstanceStats() [][]OpStats {
	return j.instanceStats(j.wallTime())
}

// wallTime is how long the job has run: until now, or until it ended.
func (j *Job) wallTime() time.Duration {
	j.mu.Lock()
	ended := j.ended
	j.mu.Unlock()
	if !ended.IsZero() {
		return ended.Sub(j.started)
	}
	return time.Since(j.started)
}

// instanceStats is InstanceStats at wall time wall. A source's busy time
// is the time its task spent in its Next, its own as an operator's is:
// not the operators chained behind it, nor the time after it ended.
func (j *Job) instanceStats(wall time.Duration) [][]OpStats {
	var out [][]OpStats
	for _, sr := range j.stages {
		if sr.spec.Source != nil {
			insts := make([]OpStats, len(sr.tasks))
			for k, t := range sr.tasks {
				m := t.env.Metrics
				bp := time.Duration(t.taskM.BackpressureNanos.Load())
				busy := time.Duration(m.BusyNanos.Load())
				s := OpStats{NodeID: sr.spec.SourceNodeID, Name: sr.spec.SourceName, Source: true, Instances: 1,
					RowsIn: m.RowsIn.Load(), RowsOut: m.RowsOut.Load(), LateRows: m.LateRows.Load(), BadRows: m.BadRows.Load(), ShedRows: m.ShedRows.Load(),
					Idle: max(wall-busy-bp, 0), Backpressure: bp, Busy: busy, Wall: wall, Watermark: m.Watermark.Load(),
					Backlog: m.EstimateBacklog(), ShedWindows: m.ShedWindows.Load(), InputKnown: m.InputRead.Load() > 0 || m.InputBacklog.Load() > 0}
				if since := t.behindSince.Load(); since != 0 {
					s.Lag = time.Since(time.Unix(0, since))
				}
				insts[k] = s
			}
			out = append(out, insts)
		}
		for i, os := range sr.spec.Ops {
			insts := make([]OpStats, 0, len(sr.tasks))
			for _, t := range sr.tasks {
				if i >= len(t.metrics) { // not opened: no figures yet
					insts = append(insts, OpStats{NodeID: os.NodeID, Name: os.Name, Instances: 1, Wall: wall})
					continue
				}
				m := t.metrics[i]
				busy := time.Duration(m.BusyNanos.Load())
				bp := time.Duration(t.taskM.BackpressureNanos.Load())
				insts = append(insts, OpStats{NodeID: os.NodeID, Name: os.Name, Instances: 1,
					RowsIn: m.RowsIn.Load(), RowsOut: m.RowsOut.Load(), LateRows: m.LateRows.Load(),
					StateKeys: m.StateKeys.Load(), StateBytes: m.StateBytes.Load(), StateArrowBytes: m.StateArrowBytes.Load(),
					Busy: busy, Backpressure: bp, Idle: max(wall-busy-bp, 0), Wall: wall,
					Watermark: m.Watermark.Load(), Counts: m.Counts(), Note: m.Note()})
			}
			out = append(out, insts)
		}
	}
	return out
}

// SumStats sums the figures of an operator's instances as Stats does:
// counts and times add up, the watermark is the lowest and the lag the
// longest. Instances is the number of instances in insts, whose first
// names the operator.
func SumStats(insts []OpStats) OpStats {
	var s OpStats
	for k, in := range insts {
		if k == 0 {
			s.NodeID, s.Name, s.Source = in.NodeID, in.Name, in.Source
		}
		s.Instances++
		s.RowsIn += in.RowsIn
		s.RowsOut += in.RowsOut
		s.Busy += in.Busy
		s.Idle += in.Idle
		s.Backpressure += in.Backpressure
		s.Wall += in.Wall
		s.LateRows += in.LateRows
		s.BadRows += in.BadRows
		s.StateKeys += in.StateKeys
		s.StateBytes += in.StateBytes
		s.StateArrowBytes += in.StateArrowBytes
		s.Watermark = lowestWatermark(s.Watermark, in.Watermark)
		s.Lag = max(s.Lag, in.Lag)
		s.Backlog += in.Backlog
		s.ShedRows += in.ShedRows
		s.ShedWindows += in.ShedWindows
		s.InputKnown = s.InputKnown || in.InputKnown
		s.Counts = addCounts(s.Counts, in.Counts)
		if s.Note == "" {
			s.Note = in.Note
		}
	}
	return s
}

// addCounts adds the counters of cs to those of sum, by name, and returns
// sum.
func addCounts(sum, cs []exec.Count) []exec.Count {
next:
	for _, c := range cs {
		for i := range sum {
			if sum[i].Name == c.Name {
				sum[i].Value += c.Value
				continue next
			}
		}
		sum = append(sum, c)
	}
	return sum
}

func lowestWatermark(a, b int64) int64 {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// BufferStats are the bytes of batches queued between a job's stages.
type BufferStats struct {
	Budget int64 // the job's buffer budget
	Queued int64 // queued now
	Peak   int64 // the highest any inbox reached, summed over inboxes
}

// Buffers returns the job's buffer figures. It may be called while the
// job runs.
func (j *Job) Buffers() BufferStats {
	s := BufferStats{Budget: j.budget}
	for _, sr := range j.stages {
		for _, b := range sr.inboxes {
			s.Queued += b.used.Load()
			s.Peak += b.peak.Load()
		}
	}
	return s
}
