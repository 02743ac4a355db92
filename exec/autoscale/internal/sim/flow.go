package sim

import (
	"fmt"
	"math"

	"github.com/eddysql/eddy/exec"
)

// throttle returns the rows per second each source emits when it wants
// to emit demand: as much as it can without any instance of any operator
// taking more than it can process at this interval's costs. An overloaded
// operator slows every source that feeds it by the factor that makes its
// busiest instance exactly fully busy, most overloaded operator first, as
// the blocked exchanges of a pipeline do.
func (s *Sim) throttle(par []int, demand []float64, costs [][]float64) []float64 {
	emit := append([]float64(nil), demand...)
	for range 4 * len(s.cfg.Ops) {
		worst, ratio := -1, 1-1e-12
		for o := range s.cfg.Ops {
			part, bcast := s.load(o, emit)
			for k := range par[o] {
				if u := (s.share(o, k, par[o])*part + bcast) * costs[o][k]; u > 0 && 1/u < ratio {
					worst, ratio = o, 1/u
				}
			}
		}
		if worst < 0 {
			break
		}
		for j := range emit {
			if s.part[worst][j]+s.bcast[worst][j] > 0 {
				emit[j] *= ratio
			}
		}
	}
	return emit
}

// load returns the rows per second reaching operator o over its hash and
// its broadcast edges when the sources emit emit.
func (s *Sim) load(o int, emit []float64) (part, bcast float64) {
	for j, e := range emit {
		part += s.part[o][j] * e
		bcast += s.bcast[o][j] * e
	}
	return part, bcast
}

// share returns the fraction of operator o's hashed rows that instance k
// of p takes: a source's splits share its input evenly; an operator's
// instance takes the rows of the key groups it owns.
func (s *Sim) share(o, k, p int) float64 {
	if len(s.cfg.Ops[o].Inputs) == 0 {
		return 1 / float64(p)
	}
	for len(s.shares[o]) <= p {
		s.shares[o] = append(s.shares[o], nil)
	}
	if s.shares[o][p] == nil {
		s.shares[o][p] = make([]float64, p)
		for i := range p {
			r := exec.KeyGroupsOf(i, p)
			for g := r.Lo; g < r.Hi; g++ {
				s.shares[o][p][i] += s.groups[o][g]
			}
		}
	}
	return s.shares[o][p][k]
}

// groupShares returns each key group's share of an operator's rows: even
// without skew, else the total Zipf(Skew) probability of the keys hashing
// to the group.
func groupShares(op Op, seed uint64) [exec.NumKeyGroups]float64 {
	var w [exec.NumKeyGroups]float64
	if op.Skew == 0 {
		for g := range w {
			w[g] = 1.0 / exec.NumKeyGroups
		}
		return w
	}
	keys := op.Keys
	if keys == 0 {
		keys = 1000
	}
	var total float64
	for k := range keys {
		total += math.Pow(float64(k+1), -op.Skew)
	}
	for k := range keys {
		w[exec.KeyGroup(mix(seed^uint64(k)))] += math.Pow(float64(k+1), -op.Skew) / total
	}
	return w
}

// coefficients returns, per operator and per source, the rows per second
// reaching the operator over hash and over broadcast edges per row per
// second the source emits. Every edge carries all of its upstream's
// output.
func coefficients(ops []Op, order, sources []int) (part, bcast [][]float64) {
	part, bcast = make([][]float64, len(ops)), make([][]float64, len(ops))
	out := make([][]float64, len(ops))
	for _, o := range order {
		part[o], bcast[o], out[o] = make([]float64, len(sources)), make([]float64, len(sources)), make([]float64, len(sources))
		sel := ops[o].Selectivity
		if len(ops[o].Inputs) == 0 {
			sel = 1
			for j, src := range sources {
				if src == o {
					part[o][j] = 1
				}
			}
		}
		for _, e := range ops[o].Inputs {
			for j := range sources {
				if e.Broadcast {
					bcast[o][j] += out[e.From][j]
				} else {
					part[o][j] += out[e.From][j]
				}
			}
		}
		for j := range sources {
			out[o][j] = sel * (part[o][j] + bcast[o][j])
		}
	}
	return part, bcast
}

// topoOrder returns the operators in topological order.
func topoOrder(ops []Op) ([]int, error) {
	indeg := make([]int, len(ops))
	down := make([][]int, len(ops))
	for i, op := range ops {
		for _, e := range op.Inputs {
			if e.From < 0 || e.From >= len(ops) || e.From == i {
				return nil, fmt.Errorf("sim: operator %d has an input from %d", i, e.From)
			}
			indeg[i]++
			down[e.From] = append(down[e.From], i)
		}
	}
	var order []int
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
	if len(order) != len(ops) {
		return nil, fmt.Errorf("sim: the operators form a cycle")
	}
	return order, nil
}

// mix is splitmix64's finalizer: a well-spread hash of x.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
