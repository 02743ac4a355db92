package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/eddysql/eddy/exec/autoscale"
)

// RandomOptions shape a random dataflow.
type RandomOptions struct {
	// Ops is the number of operators, sources included.
	Ops int
	// MinNeed and MaxNeed bound the instances of nominal speed each
	// operator that is not a source needs at the sources' rates (drawn
	// evenly between them).
	MinNeed, MaxNeed float64
	// Broadcast is the probability that an operator's second input is a
	// broadcast edge.
	Broadcast float64
	// FixedSink makes the last operator fixed and cheap (a fifth to half
	// an instance), as a single-instance sink is.
	FixedSink bool
}

// Random returns a random dataflow: one source (or two, from four
// operators on), each later operator reading one earlier operator — an
// unread source, else an operator nobody reads yet when there is one — and in three cases out of ten a
// second (a broadcast edge with probability opt.Broadcast, unless its
// rows would take more than a quarter of an instance), with selectivities
// in [0.3, 1.5] and source rates from 10k to 100k rows per second. Sources are fixed and need a fifth of an
// instance.
func Random(rng *rand.Rand, opt RandomOptions) []Op {
	sources := 1
	if opt.Ops >= 4 && rng.Float64() < 0.4 {
		sources = 2
	}
	ops := make([]Op, opt.Ops)
	read := make([]bool, opt.Ops)
	for i := range ops {
		op := &ops[i]
		if i < sources {
			op.Name, op.Rate, op.Fixed, op.Selectivity = fmt.Sprintf("src%d", i), 1e4*(1+9*rng.Float64()), true, 1
			continue
		}
		op.Name, op.Selectivity = fmt.Sprintf("op%d", i), 0.3+1.2*rng.Float64()
		first := firstInput(rng, read[:i], sources)
		op.Inputs = []autoscale.Edge{{From: first}}
		read[first] = true
		if second := rng.IntN(i); second != first && rng.Float64() < 0.3 {
			op.Inputs = append(op.Inputs, autoscale.Edge{From: second, Broadcast: rng.Float64() < opt.Broadcast})
			read[second] = true
		}
	}
	part, bcast := Loads(ops)
	for i := range ops {
		need := opt.MinNeed + (opt.MaxNeed-opt.MinNeed)*rng.Float64()
		switch {
		case i < sources:
			need = 0.2
		case i == len(ops)-1 && opt.FixedSink:
			ops[i].Fixed, need = true, 0.2+0.3*rng.Float64()
		}
		if bcast[i] > part[i]/(3*need) {
			// Broadcast rows would take more than a quarter of an
			// instance, where a planner would hash: so does this one.
			// The operator's output, and so every other load, stays.
			for k := range ops[i].Inputs {
				ops[i].Inputs[k].Broadcast = false
			}
			part[i], bcast[i] = part[i]+bcast[i], 0
		}
		ops[i].Cost = CostFor(need, part[i], bcast[i])
	}
	return ops
}

// firstInput picks the first input of the next operator: a source nobody
// reads yet if there is one, else an operator nobody reads yet if there
// is one, else any earlier operator.
func firstInput(rng *rand.Rand, read []bool, sources int) int {
	for _, cands := range [][]bool{read[:sources], read} {
		var unread []int
		for j, r := range cands {
			if !r {
				unread = append(unread, j)
			}
		}
		if len(unread) > 0 {
			return unread[rng.IntN(len(unread))]
		}
	}
	return rng.IntN(len(read))
}

// Loads returns the rows per second reaching each operator over its hash
// and its broadcast edges when every source emits its Rate.
func Loads(ops []Op) (part, bcast []float64) {
	order, err := topoOrder(ops)
	if err != nil {
		panic(err) // Loads is for the well-formed dataflows of tests
	}
	var sources []int
	emit := []float64{}
	for i, op := range ops {
		if len(op.Inputs) == 0 {
			sources = append(sources, i)
			emit = append(emit, op.Rate)
		}
	}
	pc, bc := coefficients(ops, order, sources)
	part, bcast = make([]float64, len(ops)), make([]float64, len(ops))
	for o := range ops {
		for j, e := range emit {
			part[o] += pc[o][j] * e
			bcast[o] += bc[o][j] * e
		}
	}
	return part, bcast
}

// CostFor returns the cost per row at which an operator taking part rows
// per second over hash edges and bcast over broadcast edges needs need
// instances of nominal speed, its rows spread evenly: one instance takes
// part/need + bcast rows per second.
func CostFor(need, part, bcast float64) float64 {
	return need / (part + need*bcast)
}
