package engine

import (
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/dataflow"
	"github.com/eddysql/eddy/optimizer/physical"
)

// QueryInfo is a continuous query — behind a view, a sink, a derived
// stream or a continuous insert — as the observation API shows it: what
// SHOW QUERIES lists, and, while it has a job, its dataflow with the
// figures of every operator.
type QueryInfo struct {
	Name string
	// Kind is materialized view, sink, stream or insert into <stream>.
	Kind string
	// Status is running, finished, failed, cancelled or stopped (no job:
	// the query never started, or could not resume); Error says why a
	// failed query failed.
	Status string
	Error  string
	Query  string // the defining SQL
	// Started is when its job started (zero without one) and Uptime how
	// long it has run since.
	Started time.Time
	Uptime  time.Duration
	// Parallelism is the highest parallelism of its stages.
	Parallelism int
	// Stages are the dataflow's stages in topological order, Exchanges
	// the connections between them.
	Stages    []StageInfo
	Exchanges []ExchangeInfo
	// Totals are what SHOW QUERIES shows: the rows its sources read and
	// the sink received, late and bad rows, the sink's watermark and the
	// longest source lag.
	Totals QueryTotals
	// Checkpoints are its checkpoints' figures; nil when the query is not
	// checkpointed.
	Checkpoints *CheckpointInfo
}

// QueryTotals sum a query's figures over its sources and its sink.
type QueryTotals struct {
	RowsIn, RowsOut   int64
	LateRows, BadRows int64
	Watermark         int64 // the sink's, in ms since the epoch (0: none yet)
	SourceLag         time.Duration
	// Backlog is the rows the sources know are still to come, estimated
	// (SHOW QUERIES' backlog).
	Backlog int64
	// ShedRows are the rows load shedding dropped at the sources, and
	// DropFraction the share it drops now (0 when the query sheds none);
	// ShedWindows are the windows it dropped whole (shed = 'window').
	ShedRows     int64
	DropFraction float64
	ShedWindows  int64
}

// StageInfo is one stage of a dataflow: its source, if it starts at one,
// and the chain of operators fused behind it, run by Parallelism
// instances.
type StageInfo struct {
	ID          int // its index in QueryInfo.Stages
	Parallelism int
	// Operators are the source first (if the stage has one), then the
	// chain in the order rows pass through it.
	Operators []OperatorInfo
}

// ExchangeInfo connects two stages: the output of stage From feeds input
// Input of stage To's first operator, distributed by Kind.
type ExchangeInfo struct {
	From, To, Input int
	// Kind is forward, hash, broadcast, single or round-robin.
	Kind string
	// Keys are the names of the columns a hash exchange partitions by.
	Keys []string
	// Name is the exchange as EXPLAIN prints it ("Exchange hash(a, b)").
	Name string
}

// OperatorInfo is one operator of a stage (or its source).
type OperatorInfo struct {
	// NodeID is the physical plan node it runs (0: the query's sink,
	// which is no plan node).
	NodeID int
	// Name is its one-line description, as EXPLAIN ANALYZE prints it.
	Name   string
	Source bool
	Sink   bool
	// EstRowsPerSec and EstStateBytes are the optimizer's estimates of
	// its output rate and state (0 when unknown).
	EstRowsPerSec, EstStateBytes float64
	// Figures are summed over its instances, Instances has them per
	// instance (instance i at index i).
	Figures   OperatorFigures
	Instances []OperatorFigures
}

// OperatorFigures are an operator's figures since its job started, as
// the runtime counts them (dataflow.OpStats).
type OperatorFigures struct {
	RowsIn, RowsOut int64
	// Busy is time in the operator's own code, Backpressure time its task
	// was blocked on output, Idle the rest of Wall: summed over instances,
	// the three sum to Wall.
	Busy, Idle, Backpressure, Wall time.Duration
	// Watermark is the lowest of its instances' watermarks in ms since
	// the epoch (0: none yet; exec.MaxWatermark: its input ended), and
	// WatermarkLag how far it is behind the clock (0 for those two).
	Watermark    int64
	WatermarkLag time.Duration
	// StateRows and StateBytes are its state's keys and bytes as it
	// estimates them.
	StateRows, StateBytes int64
	LateRows, BadRows     int64
	// SourceLag is, for a source, how long its oldest unread input has
	// waited (0 when caught up).
	SourceLag time.Duration
	// Backlog is, for a source, the rows it knows are still to come
	// (estimated from its rows per unit of input read).
	Backlog int64
	// ShedRows are, for a source, the rows load shedding dropped, and
	// ShedWindows the windows it dropped whole.
	ShedRows, ShedWindows int64
	// Counters are the operator's own counters, by name.
	Counters map[string]int64
}

// CheckpointInfo are a checkpointed query's checkpoint figures.
type CheckpointInfo struct {
	// Taken counts the checkpoints taken since the job started, Failed
	// those of them that failed; TotalTime is their durations summed.
	Taken, Failed int
	TotalTime     time.Duration
	// Recent are the latest checkpoints, the oldest first.
	Recent []CheckpointRecord
}

// CheckpointRecord is one checkpoint's outcome (SHOW CHECKPOINTS).
type CheckpointRecord struct {
	Epoch uint64
	Start time.Time
	// Duration runs from the barriers' request to the commit; Sync,
	// Deferred and Alignment are its parts, as SHOW CHECKPOINTS defines
	// them.
	Duration, Sync, Deferred, Alignment time.Duration
	Bytes                               int64 // written
	StateBytes                          int64 // the whole committed state after it; -1: unknown
	Error                               string
}

// ObserveQueries returns every continuous query, by name, as SHOW
// QUERIES lists them, with the dataflow and figures of those that have a
// job.
func (e *Engine) ObserveQueries() []QueryInfo {
	var out []QueryInfo
	now := time.Now()
	for _, o := range e.continuousObjects() {
		out = append(out, e.queryInfo(o.Name, now))
	}
	return out
}

// ObserveQuery returns the continuous query behind the object named name
// (case-insensitive), or false if there is none.
func (e *Engine) ObserveQuery(name string) (QueryInfo, bool) {
	o, ok := e.cat.Get(name)
	if !ok || o.Query == "" {
		return QueryInfo{}, false
	}
	return e.queryInfo(o.Name, time.Now()), true
}

// queryInfo snapshots the query behind the object named name at now.
func (e *Engine) queryInfo(name string, now time.Time) QueryInfo {
	o, ok := e.cat.Get(name)
	if !ok {
		return QueryInfo{Name: name, Status: "stopped"}
	}
	st := e.status(name)
	info := QueryInfo{Name: o.Name, Kind: e.queryKind(o), Status: st.String(), Query: o.Query}
	if st.failed() {
		info.Status = dataflow.JobFailed.String()
		info.Error = st.err.Error()
	}
	e.mu.Lock()
	q := e.queries[lower(name)]
	e.mu.Unlock()
	if q == nil || q.job == nil {
		return info
	}
	info.Started = q.job.Started()
	info.Uptime = now.Sub(info.Started)
	info.Parallelism = q.job.Parallelism()
	info.Stages, info.Exchanges = dataflowInfo(q, now)
	info.Totals = totals(info.Stages)
	info.Totals.DropFraction = q.job.DropFraction()
	if q.state != nil {
		info.Checkpoints = checkpointInfo(q.job)
	}
	return info
}

// dataflowInfo returns the stages of q's dataflow with every operator's
// figures at now, and the exchanges between them.
func dataflowInfo(q *runningQuery, now time.Time) ([]StageInfo, []ExchangeInfo) {
	nodes := map[int]physical.Node{}
	planNodes(q.plan, nodes)
	per := q.job.InstanceStats() // in stage order: each stage's source, then its chain
	k := 0
	next := func(sink bool) OperatorInfo {
		var insts []dataflow.OpStats
		if k < len(per) {
			insts = per[k]
		}
		k++
		sum := dataflow.SumStats(insts)
		op := OperatorInfo{NodeID: sum.NodeID, Name: sum.Name, Source: sum.Source, Sink: sink, Figures: figuresOf(sum, now)}
		if n := nodes[sum.NodeID]; n != nil && sum.NodeID != 0 {
			op.EstRowsPerSec, op.EstStateBytes = n.Hdr().Est.RowsPerSec, n.Hdr().Est.StateBytes
		}
		for _, in := range insts {
			op.Instances = append(op.Instances, figuresOf(in, now))
		}
		return op
	}
	var stages []StageInfo
	var exchanges []ExchangeInfo
	last := len(q.graph.Stages) - 1
	for i, s := range q.graph.Stages {
		st := StageInfo{ID: i, Parallelism: s.Parallelism}
		if s.Source != nil {
			st.Operators = append(st.Operators, next(false))
		}
		for j, os := range s.Ops {
			op := next(i == last && j == len(s.Ops)-1 && os.NodeID == 0)
			st.Operators = append(st.Operators, op)
		}
		stages = append(stages, st)
		for _, in := range s.Inputs {
			ex := ExchangeInfo{From: in.From, To: i, Input: in.Input, Kind: in.Dist.String()}
			if n, ok := nodes[in.NodeID].(*physical.Exchange); ok && in.NodeID != 0 {
				ex.Name = physical.Line(n)
				cols := n.Cols // the keys index the exchange's output
				for _, key := range in.Keys {
					if key >= 0 && key < len(cols) {
						ex.Keys = append(ex.Keys, cols[key].Name)
					}
				}
			}
			exchanges = append(exchanges, ex)
		}
	}
	return stages, exchanges
}

// planNodes indexes the nodes of the plan under n by ID.
func planNodes(n physical.Node, into map[int]physical.Node) {
	if n == nil {
		return
	}
	h := n.Hdr()
	into[h.ID] = n
	for _, c := range h.Inputs {
		planNodes(c, into)
	}
}

// figuresOf converts the runtime's figures at now.
func figuresOf(s dataflow.OpStats, now time.Time) OperatorFigures {
	f := OperatorFigures{RowsIn: s.RowsIn, RowsOut: s.RowsOut, Busy: s.Busy, Idle: s.Idle, Backpressure: s.Backpressure,
		Wall: s.Wall, Watermark: s.Watermark, StateRows: s.StateKeys, StateBytes: s.StateBytes,
		LateRows: s.LateRows, BadRows: s.BadRows, SourceLag: s.Lag, Backlog: s.Backlog, ShedRows: s.ShedRows, ShedWindows: s.ShedWindows}
	if s.Watermark != 0 && s.Watermark != exec.MaxWatermark {
		f.WatermarkLag = max(now.Sub(time.UnixMilli(s.Watermark)), 0)
	}
	if len(s.Counts) > 0 {
		f.Counters = make(map[string]int64, len(s.Counts))
		for _, c := range s.Counts {
			f.Counters[c.Name] = c.Value
		}
	}
	return f
}

// totals sums a query's figures as SHOW QUERIES does: rows in, late and
// bad rows and lag over its sources, rows out and watermark at its sink.
func totals(stages []StageInfo) QueryTotals {
	var t QueryTotals
	for _, st := range stages {
		for _, op := range st.Operators {
			f := op.Figures
			if op.Source {
				t.RowsIn += f.RowsIn
				t.LateRows += f.LateRows
				t.BadRows += f.BadRows
				t.SourceLag = max(t.SourceLag, f.SourceLag)
				t.Backlog += f.Backlog
				t.ShedRows += f.ShedRows
				t.ShedWindows += f.ShedWindows
			}
		}
	}
	if n := len(stages); n > 0 {
		if ops := stages[n-1].Operators; len(ops) > 0 {
			sink := ops[len(ops)-1].Figures
			t.RowsOut, t.Watermark = sink.RowsIn, sink.Watermark
		}
	}
	return t
}

// checkpointInfo returns the checkpoint figures of job.
func checkpointInfo(job *dataflow.Job) *CheckpointInfo {
	taken, failed, total := job.CheckpointTotals()
	c := &CheckpointInfo{Taken: taken, Failed: failed, TotalTime: total}
	for _, s := range job.Checkpoints() {
		r := CheckpointRecord{Epoch: s.Epoch, Start: s.Start, Duration: s.Duration, Sync: s.Sync, Deferred: s.Deferred,
			Alignment: s.Alignment, Bytes: s.Bytes, StateBytes: s.StateBytes}
		if s.Err != nil {
			r.Error = s.Err.Error()
		}
		c.Recent = append(c.Recent, r)
	}
	return c
}
