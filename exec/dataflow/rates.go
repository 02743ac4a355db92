package dataflow

import (
	"time"
)

// The figures of a policy interval: what every operator instance did
// between two samples of the job's counters, and the rates that follow.
// They are DS2's ("Three steps is all you need", OSDI '18): an operator's
// true processing rate λp is the rows it took per second of its own busy
// time — what it could take if it never waited — against its observed
// rate, the rows it took per second of wall time.

// Sample is a job's counters at one moment: InstanceStats with the job's
// wall time they were read at.
type Sample struct {
	// Wall is how long the job had run when the sample was taken.
	Wall time.Duration
	// At is when it was taken.
	At time.Time
	// Ops are the figures of InstanceStats, read at Wall.
	Ops [][]OpStats
}

// Sample reads the job's counters: the atomic counters the runtime keeps
// anyway, so it costs the data path nothing. It may be called while the
// job runs.
func (j *Job) Sample() Sample {
	wall := j.wallTime()
	return Sample{Wall: wall, At: j.started.Add(wall), Ops: j.instanceStats(wall)}
}

// Shape is where a job's operators are in its graph: what the diagnosis
// of an interval needs beyond the figures.
type Shape struct {
	// Ops locate the operators, in the order of Stats.
	Ops []OpPlace
	// Stages are the job's stages, in the order of its GraphSpec.
	Stages []StageShape
}

// OpPlace locates an operator: its stage, and its place in the stage's
// chain (-1 for the stage's source).
type OpPlace struct {
	Stage, Chain int
}

// StageShape is a stage as the diagnosis sees it.
type StageShape struct {
	Parallelism int
	// Consumer is the stage its output feeds (-1: the sink stage), the
	// last of them when it feeds several (a shared sub-plan).
	Consumer int
	// Hashed says an input reaches the stage through a hash exchange:
	// its first operator's instances each receive the rows of their key
	// groups.
	Hashed bool
}

// Shape returns where the job's operators are in its graph.
func (j *Job) Shape() Shape {
	var sh Shape
	for si, sr := range j.stages {
		st := StageShape{Parallelism: sr.spec.Parallelism, Consumer: -1}
		if n := len(sr.consumers); n > 0 {
			st.Consumer = sr.consumers[n-1].stage
		}
		for _, in := range sr.spec.Inputs {
			if in.Dist == DistHash {
				st.Hashed = true
			}
		}
		sh.Stages = append(sh.Stages, st)
		if sr.spec.Source != nil {
			sh.Ops = append(sh.Ops, OpPlace{Stage: si, Chain: -1})
		}
		for i := range sr.spec.Ops {
			sh.Ops = append(sh.Ops, OpPlace{Stage: si, Chain: i})
		}
	}
	return sh
}

// Interval is what a job did over one policy interval: per operator and
// instance, the differences of its counters between two samples.
type Interval struct {
	// Seq numbers the job's intervals from 1.
	Seq uint64
	// End is when the interval ended, Length how long it lasted.
	End    time.Time
	Length time.Duration
	Shape  Shape
	// Ops are the operators in the order of Stats.
	Ops []OpInterval
	// Latency summarizes the latency markers that reached the sink in the
	// interval (Markers 0: none, or latency markers are off).
	Latency Latency
}

// OpInterval is one operator's figures over an interval.
type OpInterval struct {
	// Instances are each instance's differences: rows, late and bad rows
	// and times are what the instance added in the interval (Wall is the
	// interval's length); state, watermark, lag and backlog are as at its
	// end.
	Instances []OpStats
	// Total sums the instances (SumStats).
	Total OpStats
}

// Delta returns the interval from prev to cur, two samples of the same
// job (a zero prev: from the job's start). The interval has no Seq,
// Shape or Latency: the caller knows them.
func Delta(prev, cur Sample) Interval {
	iv := Interval{End: cur.At, Length: cur.Wall - prev.Wall, Ops: make([]OpInterval, len(cur.Ops))}
	for k, insts := range cur.Ops {
		var before []OpStats
		if k < len(prev.Ops) && len(prev.Ops[k]) == len(insts) {
			before = prev.Ops[k]
		}
		d := make([]OpStats, len(insts))
		for i, s := range insts {
			if before != nil {
				s = deltaStats(before[i], s)
			}
			d[i] = s
		}
		iv.Ops[k] = OpInterval{Instances: d, Total: SumStats(d)}
	}
	return iv
}

// deltaStats returns what one instance's counters added from a to b;
// its gauges are b's.
func deltaStats(a, b OpStats) OpStats {
	d := b
	d.RowsIn -= a.RowsIn
	d.RowsOut -= a.RowsOut
	d.LateRows -= a.LateRows
	d.BadRows -= a.BadRows
	d.Busy -= a.Busy
	d.Idle -= a.Idle
	d.Backpressure -= a.Backpressure
	d.Wall -= a.Wall
	d.Counts = nil
	for _, c := range b.Counts {
		for _, o := range a.Counts {
			if o.Name == c.Name {
				c.Value -= o.Value
				break
			}
		}
		d.Counts = append(d.Counts, c)
	}
	return d
}

// Rates are an operator's (or an instance's) rates over an interval.
type Rates struct {
	// TrueProcessing (λp) and TrueOutput (λo) are the rows it took and
	// made per second of its busy time: what it could take and make if
	// it never waited for input or output. 0 when it was never busy.
	TrueProcessing, TrueOutput float64
	// ObservedIn and ObservedOut are the rows it took and made per
	// second of wall time.
	ObservedIn, ObservedOut float64
	// Selectivity is rows out per row in (0 without input: see HasInput).
	Selectivity float64
	HasInput    bool
}

// RatesOf returns the rates of figures over an interval: one instance's,
// or an operator's summed over its instances (SumStats), whose true rates
// are then per instance and observed rates the operator's.
func RatesOf(s OpStats) Rates {
	var r Rates
	if busy := s.Busy.Seconds(); busy > 0 {
		r.TrueProcessing = float64(s.RowsIn) / busy
		r.TrueOutput = float64(s.RowsOut) / busy
	}
	if wall := s.Wall.Seconds() / float64(max(s.Instances, 1)); wall > 0 {
		r.ObservedIn = float64(s.RowsIn) / wall
		r.ObservedOut = float64(s.RowsOut) / wall
	}
	if s.RowsIn > 0 {
		r.HasInput = true
		r.Selectivity = float64(s.RowsOut) / float64(s.RowsIn)
	}
	return r
}

// Utilization is the share of the interval that the operator's busiest
// instance was busy: 1 when it never waited, so that its rate cannot
// rise.
func (o OpInterval) Utilization() float64 {
	u := 0.0
	for _, s := range o.Instances {
		if s.Wall > 0 {
			u = max(u, float64(s.Busy)/float64(s.Wall))
		}
	}
	return u
}

// Capacity is the rows per second the operator could take with its rows
// spread over its instances as in the interval: its rows in over its
// busiest instance's busy time, since that instance saturates first. 0
// when no instance was busy.
func (o OpInterval) Capacity() float64 {
	var busiest time.Duration
	for _, s := range o.Instances {
		busiest = max(busiest, s.Busy)
	}
	if busiest <= 0 {
		return 0
	}
	return float64(o.Total.RowsIn) / busiest.Seconds()
}
