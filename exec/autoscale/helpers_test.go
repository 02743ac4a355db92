package autoscale_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eddysql/eddy/exec/autoscale"
	"github.com/eddysql/eddy/exec/autoscale/internal/sim"
)

// seeds is how many random dataflows each randomized test runs.
const seeds = 200

// randomOps returns the random dataflow of seed: 3 to 6 operators shaped
// by o (o.Ops is drawn when 0).
func randomOps(seed uint64, o sim.RandomOptions) []sim.Op {
	rng := rand.New(rand.NewPCG(seed, 0xd52))
	if o.Ops == 0 {
		o.Ops = 3 + rng.IntN(4)
	}
	return sim.Random(rng, o)
}

// needs returns the instances of nominal speed each operator needs at the
// sources' rates, its rows spread evenly.
func needs(ops []sim.Op) []float64 {
	part, bcast := sim.Loads(ops)
	n := make([]float64, len(ops))
	for i, op := range ops {
		n[i] = part[i] / (1/op.Cost - bcast[i])
	}
	return n
}

// ones returns parallelism 1 for every operator of ops.
func ones(ops []sim.Op) []int {
	p := make([]int, len(ops))
	for i := range p {
		p[i] = 1
	}
	return p
}

// filled returns parallelism p for every operator of ops that is not
// fixed, and 1 for the others.
func filled(ops []sim.Op, p int) []int {
	par := ones(ops)
	for i, op := range ops {
		if !op.Fixed {
			par[i] = p
		}
	}
	return par
}

// bruteForce returns the configuration with the fewest instances in all
// that takes the sources' rates without backpressure, trying every
// parallelism in [1, max] for every operator that is not fixed (fixed
// ones keep their parallelism in base); false if none does.
func bruteForce(s *sim.Sim, base []int, max int) ([]int, bool) {
	var free []int
	for i, op := range s.Ops() {
		if !op.Fixed {
			free = append(free, i)
		}
	}
	par := slices.Clone(base)
	var best []int
	var try func(k, sum int)
	try = func(k, sum int) {
		if k == len(free) {
			if s.Feasible(par) && (best == nil || sum < total(best)) {
				best = slices.Clone(par)
			}
			return
		}
		for p := 1; p <= max; p++ {
			par[free[k]] = p
			try(k+1, sum+p)
		}
	}
	try(0, total(base))
	return best, best != nil
}

func total(par []int) (n int) {
	for _, p := range par {
		n += p
	}
	return n
}

// loop runs a controller over a simulation, applying what it decides.
type loop struct {
	t       *testing.T
	s       *sim.Sim
	c       *autoscale.Controller
	par     []int
	applied int // decisions applied
}

func newLoop(t *testing.T, cfg sim.Config, c autoscale.Config, par []int) *loop {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := autoscale.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return &loop{t: t, s: s, c: ctl, par: slices.Clone(par)}
}

// step simulates one interval at the current parallelism, has the
// controller observe it and applies its decision.
func (l *loop) step() (sim.Result, autoscale.Decision) {
	l.t.Helper()
	r := l.s.Step(l.par)
	d, err := l.c.Observe(&r.Interval)
	if err != nil {
		l.t.Fatal(err)
	}
	if d.Action == autoscale.Apply {
		l.par = d.Parallelism()
		l.applied++
	}
	return r, d
}

// settle steps until the controller has held for quiet intervals in a
// row, at most limit steps, and reports whether it did.
func (l *loop) settle(quiet, limit int) bool {
	l.t.Helper()
	held := 0
	for range limit {
		if _, d := l.step(); d.Action == autoscale.Hold {
			held++
		} else {
			held = 0
		}
		if held == quiet {
			return true
		}
	}
	return false
}
