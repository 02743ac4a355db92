package autoscale

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrInvalid is wrapped by every error about an Interval or a Config the
// package cannot use: a bad edge, a cycle, an operator without instances,
// negative figures, a setting out of range.
var ErrInvalid = errors.New("autoscale: invalid input")

// Interval is what the controller observes over one policy interval: the
// dataflow's operators with their current parallelism and, per parallel
// instance, what each did during the interval.
type Interval struct {
	// Length is the wall time the figures cover.
	Length time.Duration
	// Ops are the operators, in any order; edges refer to them by index.
	Ops []Op
}

// Op is one operator of the dataflow.
type Op struct {
	Name string
	// Inputs are the operator's upstream edges. An operator without
	// inputs is a source.
	Inputs []Edge
	// Rate is, for a source, its target input rate in rows per second:
	// the rate its input arrives at (ArrivalRate), or a rate it must keep
	// up with. 0 means its observed input rate, which cannot tell a
	// source that keeps up from one held back by backpressure.
	Rate float64
	// Fixed operators keep their parallelism (an operator that must run
	// as one instance, a source that cannot split); their rates still
	// propagate downstream.
	Fixed bool
	// Stage groups operators chained in one task: operators with the same
	// nonzero Stage must have the same parallelism, and get the highest
	// any of them needs.
	Stage int
	// Instances holds one entry per parallel instance: len(Instances) is
	// the operator's current parallelism.
	Instances []Instance
}

// Edge is an edge from an upstream operator.
type Edge struct {
	// From is the index of the upstream operator in Interval.Ops.
	From int
	// Broadcast says every instance receives all of the upstream's
	// output, rather than a share of it (hash or forward exchanges).
	Broadcast bool
}

// Instance is what one parallel instance of an operator did during the
// interval.
type Instance struct {
	// RowsIn and RowsOut are the rows it processed and produced (for a
	// source: the rows it read and emitted).
	RowsIn, RowsOut int64
	// Busy is its useful time: in its own code, neither waiting for input
	// nor blocked on output.
	Busy time.Duration
}

// ArrivalRate returns the rate in rows per second at which a source's
// input arrived during an interval of length d: the rows it read plus how
// much its backlog (rows known to be waiting, in the same unit as rows
// read) grew. The engine passes it as Op.Rate, so that a source held back
// by backpressure still asks for the rate its input arrives at.
func ArrivalRate(rowsIn, backlogBefore, backlogAfter int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return math.Max(float64(rowsIn+backlogAfter-backlogBefore), 0) / d.Seconds()
}

// Parallelism returns the current parallelism of every operator of in, in
// the order of in.Ops.
func (in *Interval) Parallelism() []int {
	p := make([]int, len(in.Ops))
	for i := range in.Ops {
		p[i] = len(in.Ops[i].Instances)
	}
	return p
}

// check validates in and returns its operators in topological order
// (every operator after its upstream operators).
func (in *Interval) check() ([]int, error) {
	if in.Length <= 0 {
		return nil, fmt.Errorf("%w: interval length %v", ErrInvalid, in.Length)
	}
	if len(in.Ops) == 0 {
		return nil, fmt.Errorf("%w: no operators", ErrInvalid)
	}
	stagePar := map[int]int{}
	indeg := make([]int, len(in.Ops))
	down := make([][]int, len(in.Ops))
	for i, op := range in.Ops {
		if len(op.Instances) == 0 {
			return nil, fmt.Errorf("%w: operator %d (%s) has no instances", ErrInvalid, i, op.Name)
		}
		if op.Rate < 0 || math.IsNaN(op.Rate) || math.IsInf(op.Rate, 0) {
			return nil, fmt.Errorf("%w: operator %d (%s) has rate %v", ErrInvalid, i, op.Name, op.Rate)
		}
		for k, inst := range op.Instances {
			if inst.RowsIn < 0 || inst.RowsOut < 0 || inst.Busy < 0 {
				return nil, fmt.Errorf("%w: instance %d of operator %d (%s) has negative figures", ErrInvalid, k, i, op.Name)
			}
		}
		if op.Stage != 0 {
			if p, ok := stagePar[op.Stage]; ok && p != len(op.Instances) {
				return nil, fmt.Errorf("%w: operator %d (%s) has parallelism %d, but stage %d has %d",
					ErrInvalid, i, op.Name, len(op.Instances), op.Stage, p)
			}
			stagePar[op.Stage] = len(op.Instances)
		}
		for _, e := range op.Inputs {
			if e.From < 0 || e.From >= len(in.Ops) || e.From == i {
				return nil, fmt.Errorf("%w: operator %d (%s) has an input from %d", ErrInvalid, i, op.Name, e.From)
			}
			indeg[i]++
			down[e.From] = append(down[e.From], i)
		}
	}
	order := make([]int, 0, len(in.Ops))
	for i, d := range indeg {
		if d == 0 {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		for _, j := range down[order[k]] {
			if indeg[j]--; indeg[j] == 0 {
				order = append(order, j)
			}
		}
	}
	if len(order) != len(in.Ops) {
		return nil, fmt.Errorf("%w: the operators' edges form a cycle", ErrInvalid)
	}
	return order, nil
}
