package engine

import (
	"time"

	"github.com/eddysql/eddy/exec/autoscale"
	"github.com/eddysql/eddy/exec/dataflow"
)

// autoscaleInterval builds the DS2 controller's view of one policy
// interval of a query's dataflow g from two snapshots of its jobs' figures
// per instance (Job.InstanceStats, taken d apart): one operator per source
// and per chained operator, in the order of the snapshots, each with what
// its instances did in between. Operators of one stage share it (they run
// in one task, at one parallelism); a stage's first operator reads the last
// operator of each stage it takes input from, a chained one its
// predecessor. A source's target rate is the rate its input arrived at:
// the rows it read plus the growth of what waits unread. It returns nil
// when the snapshots are not of the same dataflow (it was rescaled in
// between).
func autoscaleInterval(g dataflow.GraphSpec, before, after [][]dataflow.OpStats, d time.Duration) *autoscale.Interval {
	if len(before) != len(after) || d <= 0 {
		return nil
	}
	for i := range before {
		if len(before[i]) != len(after[i]) {
			return nil
		}
	}
	in := &autoscale.Interval{Length: d}
	last := make([]int, len(g.Stages)) // each stage's last operator in in.Ops
	next := 0                          // the snapshot entry of the next operator
	add := func(si int, inputs []autoscale.Edge) (int, bool) {
		if next >= len(after) {
			return 0, false
		}
		b, a := before[next], after[next]
		op := autoscale.Op{Name: a[0].Name, Inputs: inputs, Stage: si + 1}
		var read, backlogBefore, backlogAfter int64
		for k := range a {
			op.Instances = append(op.Instances, autoscale.Instance{
				RowsIn: a[k].RowsIn - b[k].RowsIn, RowsOut: a[k].RowsOut - b[k].RowsOut, Busy: a[k].Busy - b[k].Busy})
			read += a[k].RowsIn - b[k].RowsIn
			backlogBefore += b[k].Backlog
			backlogAfter += a[k].Backlog
		}
		if len(inputs) == 0 {
			op.Rate = autoscale.ArrivalRate(read, backlogBefore, backlogAfter, d)
		}
		in.Ops = append(in.Ops, op)
		next++
		return len(in.Ops) - 1, true
	}
	for si, st := range g.Stages {
		prev := -1
		if st.Source != nil {
			i, ok := add(si, nil)
			if !ok {
				return nil
			}
			prev = i
		}
		for range st.Ops {
			var inputs []autoscale.Edge
			if prev >= 0 {
				inputs = []autoscale.Edge{{From: prev}}
			} else {
				for _, src := range st.Inputs {
					inputs = append(inputs, autoscale.Edge{From: last[src.From], Broadcast: src.Dist == dataflow.DistBroadcast})
				}
			}
			i, ok := add(si, inputs)
			if !ok {
				return nil
			}
			prev = i
		}
		last[si] = prev
	}
	if next != len(after) {
		return nil
	}
	return in
}

// autoscaleParallelism is the parallelism a decision asks of a query run
// at one parallelism: the highest of its operators'.
func autoscaleParallelism(d *autoscale.Decision) int {
	p := 1
	for _, n := range d.Parallelism() {
		p = max(p, n)
	}
	return p
}
