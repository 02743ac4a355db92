package autoscale

import (
	"math"
)

// Estimate is what the DS2 policy makes of one operator in one interval.
// Rates are in rows per second.
type Estimate struct {
	Name        string
	Parallelism int // current
	Source      bool
	Fixed       bool
	// Known says the interval held enough of the operator's work (at
	// least Config.MinRows rows and some busy time) to estimate its true
	// rates. An unknown operator's Optimal is its current parallelism.
	Known bool
	// ProcRate and OutRate are the true processing and output rates λp
	// and λo of one instance: rows processed and produced per second of
	// busy time, over all instances (Σ rows / Σ busy).
	ProcRate, OutRate float64
	// Busiest is the busy fraction of the busiest instance, and
	// Imbalance its busy time over the instances' mean (1: even).
	Busiest, Imbalance float64
	// Observed and ObservedOut are the rates the operator took in and
	// produced during the interval, as a whole: rows arriving over a
	// broadcast edge count once, not once per instance.
	Observed, ObservedOut float64
	// Target is the operator's target input rate: a source's Rate (or
	// Observed), else the sum of its upstream operators' TargetOut.
	// Broadcast is the part of Target arriving over broadcast edges,
	// which every instance processes whole.
	Target, Broadcast float64
	// TargetOut is the target output rate: Target times the operator's
	// selectivity, ObservedOut / Observed.
	TargetOut float64
	// Need is how many instances keep up with Target, before rounding up;
	// +Inf when even one instance cannot take the broadcast rows alone.
	Need float64
	// Optimal is DS2's π: Need rounded up and bounded by [1, Config.Max].
	Optimal int
}

// Policy runs the DS2 policy over one interval and returns an Estimate
// per operator, in the order of in.Ops. It only estimates: the rules that
// decide whether to act on the estimates are the Controller's.
func (c Config) Policy(in *Interval) ([]Estimate, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	order, err := in.check()
	if err != nil {
		return nil, err
	}
	secs := in.Length.Seconds()
	est := make([]Estimate, len(in.Ops))
	for _, i := range order {
		op := &in.Ops[i]
		e := &est[i]
		e.Name, e.Parallelism, e.Source, e.Fixed = op.Name, len(op.Instances), len(op.Inputs) == 0, op.Fixed
		var rowsIn, rowsOut int64
		var busy float64
		for _, inst := range op.Instances {
			rowsIn += inst.RowsIn
			rowsOut += inst.RowsOut
			busy += inst.Busy.Seconds()
			e.Busiest = math.Max(e.Busiest, inst.Busy.Seconds()/secs)
		}
		if busy > 0 {
			e.ProcRate, e.OutRate = float64(rowsIn)/busy, float64(rowsOut)/busy
			e.Imbalance = e.Busiest * secs * float64(e.Parallelism) / busy
		}
		e.Known = rowsIn >= c.MinRows && rowsIn > 0 && busy > 0
		// The rows of a broadcast edge reach every instance: observed once
		// for the operator as a whole, and once more per extra instance in
		// the rows the instances count.
		var bcastObserved float64
		for _, edge := range op.Inputs {
			if edge.Broadcast {
				bcastObserved += est[edge.From].ObservedOut
				e.Broadcast += est[edge.From].TargetOut
			} else {
				e.Target += est[edge.From].TargetOut
			}
		}
		partObserved := math.Max(float64(rowsIn)/secs-float64(e.Parallelism)*bcastObserved, 0)
		e.Observed = partObserved + bcastObserved
		e.ObservedOut = float64(rowsOut) / secs
		if e.Source {
			e.Target = op.Rate
			if e.Target == 0 {
				e.Target = e.Observed
			}
		}
		e.Target += e.Broadcast
		sel := 1.0
		if e.Observed > 0 {
			sel = e.ObservedOut / e.Observed
		}
		e.TargetOut = e.Target * sel
		if !e.Known {
			e.Optimal = e.Parallelism
			continue
		}
		e.Need = need(op, secs, partObserved, bcastObserved, e.Target-e.Broadcast, e.Broadcast)
		e.Optimal = c.bound(e.Need)
	}
	return est, nil
}

// need returns how many instances op needs to take target rows per second
// over its partitioned edges and bcast over its broadcast edges, judged by
// the instance that would saturate first. It assumes an instance keeps its
// rate (rows per busy second) and its share of the partitioned rows
// relative to an even share, whatever the parallelism: an instance taking
// share s of the partitioned rows at p instances takes s·p/p' of them at
// p', plus all the broadcast rows, and needs
//
//	s·p·target/p' + bcast ≤ rate, that is p' ≥ s·p·target / (rate − bcast).
//
// Without broadcast edges this is p·(target/observed)·(busy fraction): the
// busiest instance decides.
func need(op *Op, secs, partObserved, bcastObserved, target, bcast float64) float64 {
	p := float64(len(op.Instances))
	var n float64
	for _, inst := range op.Instances {
		if inst.RowsIn == 0 || inst.Busy <= 0 {
			continue // took no rows, or too little work to time
		}
		rate := float64(inst.RowsIn) / inst.Busy.Seconds()
		if rate <= bcast {
			return math.Inf(1)
		}
		share := 1 / p
		if partObserved > 0 {
			share = math.Max(float64(inst.RowsIn)/secs-bcastObserved, 0) / partObserved
		}
		n = math.Max(n, share*p*target/(rate-bcast))
	}
	return n
}

// bound rounds need up to a parallelism in [1, c.Max]. A need a hair above
// an integer (from floating-point error) rounds down to it.
func (c Config) bound(need float64) int {
	if math.IsInf(need, 1) || need >= float64(c.Max) {
		return c.Max
	}
	return max(1, int(math.Ceil(need*(1-1e-9))))
}
