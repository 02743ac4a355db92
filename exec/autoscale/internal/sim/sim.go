// Package sim simulates a dataflow for the tests of package autoscale:
// operators with a known cost per row and selectivity over a DAG, run at
// a given parallelism and source rate, producing for each interval the
// per-instance figures the controller consumes, as eddy's runtime would
// report them.
//
// The model. Every row an operator takes costs it Cost seconds of busy
// time on an instance of nominal speed; instance k of an operator runs at
// a speed fixed for the run (Variation), and each interval every instance's
// cost and every source's rate vary by a random factor (Noise). A hash
// edge routes rows by key group, as eddy's exchanges do: a key hashes to
// one of 256 groups and an instance owns a contiguous range of them
// (exec.InstanceForKeyGroup), so an operator whose keys follow a Zipf law
// (Skew) loads one instance more than the others. A broadcast edge gives
// every instance all the rows. When some instance cannot take its load,
// the dataflow is backpressured: the sources feeding that operator emit
// less, as a blocked pipeline makes them, until every instance is at most
// fully busy; what they do not emit waits in their backlog.
package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/eddysql/eddy/exec"
	"github.com/eddysql/eddy/exec/autoscale"
)

// Op is one simulated operator.
type Op struct {
	Name   string
	Inputs []autoscale.Edge // none: a source
	// Cost is the busy time in seconds that one input row costs an
	// instance of nominal speed.
	Cost float64
	// Selectivity is the output rows per input row (a source's is 1).
	Selectivity float64
	// Rate is, for a source, the rows per second arriving at its input.
	Rate float64
	// Fixed is passed on to autoscale.Op.Fixed.
	Fixed bool
	// Skew is the Zipf exponent of the keys the operator is partitioned
	// by (0: every key group equally loaded), and Keys their number (1000
	// if 0).
	Skew float64
	Keys int
}

// Config configures a simulation.
type Config struct {
	Ops []Op
	// Interval is the length of an interval (1s if 0).
	Interval time.Duration
	// Noise: each interval, each source's rate and each instance's cost
	// per row are multiplied by a factor drawn from [1−Noise, 1+Noise].
	Noise float64
	// Variation: instance k of an operator runs at a speed drawn once
	// from [1−Variation, 1+Variation] of nominal.
	Variation float64
	// CatchUp makes sources read their backlog as fast as the dataflow
	// lets them, as a source reading a log does.
	CatchUp bool
	Seed    uint64
}

// Sim is a simulated dataflow. Its methods are deterministic given the
// configuration's seed and the sequence of calls.
type Sim struct {
	cfg     Config
	rng     *rand.Rand
	secs    float64
	order   []int
	sources []int
	// part[o][j] and bcast[o][j] are the rows per second reaching o over
	// hash and broadcast edges per row per second that source sources[j]
	// emits.
	part, bcast [][]float64
	groups      [][exec.NumKeyGroups]float64 // per operator, each key group's share of its hashed rows
	shares      [][][]float64                // shares[o][p][k]: share(o, k, p), as computed
	backlog     []float64                    // per operator (sources only), rows
}

// New returns a simulation of cfg.
func New(cfg Config) (*Sim, error) {
	if cfg.Interval == 0 {
		cfg.Interval = time.Second
	}
	s := &Sim{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)), secs: cfg.Interval.Seconds(),
		backlog: make([]float64, len(cfg.Ops)), shares: make([][][]float64, len(cfg.Ops)), groups: make([][exec.NumKeyGroups]float64, len(cfg.Ops))}
	order, err := topoOrder(cfg.Ops)
	if err != nil {
		return nil, err
	}
	s.order = order
	for i, op := range cfg.Ops {
		if len(op.Inputs) == 0 {
			s.sources = append(s.sources, i)
		}
		if op.Cost <= 0 {
			return nil, fmt.Errorf("sim: operator %d (%s) has cost %v", i, op.Name, op.Cost)
		}
		s.groups[i] = groupShares(op, cfg.Seed+uint64(i))
	}
	s.part, s.bcast = coefficients(cfg.Ops, order, s.sources)
	return s, nil
}

// Result is one simulated interval.
type Result struct {
	// Interval holds the figures for the controller; a source's Rate is
	// its arrival rate, as the engine derives it from the source's rows
	// read and backlog (autoscale.ArrivalRate).
	Interval autoscale.Interval
	// Throttled says some source emitted less than it wanted to.
	Throttled bool
	// ProcRate and OutRate are, per operator, the true processing and
	// output rates of one instance, as the policy defines them (rows per
	// second of busy time over all instances), computed from the nominal
	// costs without the interval's noise.
	ProcRate, OutRate []float64
}

// SetRate changes the arrival rate of source op.
func (s *Sim) SetRate(op int, rate float64) { s.cfg.Ops[op].Rate = rate }

// HotShare returns the largest share of operator o's hashed rows that one
// of p instances takes.
func (s *Sim) HotShare(o, p int) float64 {
	var top float64
	for k := range p {
		top = max(top, s.share(o, k, p))
	}
	return top
}

// Ops returns the simulated operators.
func (s *Sim) Ops() []Op { return s.cfg.Ops }

// Step simulates one interval at parallelism par (one entry per
// operator, each at least 1).
func (s *Sim) Step(par []int) Result {
	s.checkPar(par)
	ops := s.cfg.Ops
	arrival := make([]float64, len(s.sources))
	demand := make([]float64, len(s.sources))
	for j, src := range s.sources {
		arrival[j] = ops[src].Rate * s.noise()
		demand[j] = arrival[j]
		if s.cfg.CatchUp {
			demand[j] += s.backlog[src] / s.secs
		}
	}
	costs := make([][]float64, len(ops)) // this interval's cost per row, per instance
	for o := range ops {
		costs[o] = make([]float64, par[o])
		for k := range costs[o] {
			costs[o][k] = ops[o].Cost / s.speed(o, k) * s.noise()
		}
	}
	emit := s.throttle(par, demand, costs)
	res := Result{ProcRate: make([]float64, len(ops)), OutRate: make([]float64, len(ops))}
	res.Interval = autoscale.Interval{Length: s.cfg.Interval, Ops: make([]autoscale.Op, len(ops))}
	for j, src := range s.sources {
		res.Throttled = res.Throttled || emit[j] < demand[j]*(1-1e-9)
		before := s.backlog[src]
		s.backlog[src] = math.Max(before+(arrival[j]-emit[j])*s.secs, 0)
		read := math.Round(emit[j] * s.secs)
		res.Interval.Ops[src].Rate = autoscale.ArrivalRate(int64(read), int64(math.Round(before)), int64(math.Round(s.backlog[src])), s.cfg.Interval)
	}
	for o, op := range ops {
		out := &res.Interval.Ops[o]
		out.Name, out.Inputs, out.Fixed = op.Name, op.Inputs, op.Fixed
		out.Instances = make([]autoscale.Instance, par[o])
		part, bcast := s.load(o, emit)
		sel := op.Selectivity
		if len(op.Inputs) == 0 {
			sel = 1
		}
		var rows, produced, nominal float64
		for k := range out.Instances {
			in := math.Round((s.share(o, k, par[o])*part + bcast) * s.secs)
			// The output of the broadcast rows is spread over the
			// instances, so that the operator as a whole produces
			// Selectivity times its logical input.
			prod := math.Round(sel * (s.share(o, k, par[o])*part + bcast/float64(par[o])) * s.secs)
			out.Instances[k] = autoscale.Instance{RowsIn: int64(in), RowsOut: int64(prod),
				Busy: time.Duration(in * costs[o][k] * 1e9)}
			rows, produced = rows+in, produced+prod
			nominal += in * op.Cost / s.speed(o, k)
		}
		if nominal > 0 {
			res.ProcRate[o], res.OutRate[o] = rows/nominal, produced/nominal
		}
	}
	return res
}

// Feasible reports whether parallelism par takes the sources' arrival
// rates without backpressure, at nominal costs and rates.
func (s *Sim) Feasible(par []int) bool {
	s.checkPar(par)
	for o := range s.cfg.Ops {
		if s.Busy(o, par[o]) > 1+1e-9 {
			return false
		}
	}
	return true
}

// Busy returns the busy fraction the busiest of p instances of operator o
// would need to take its share of the sources' arrival rates, at nominal
// costs and rates: above 1, the operator cannot keep up.
func (s *Sim) Busy(o, p int) float64 {
	emit := make([]float64, len(s.sources))
	for j, src := range s.sources {
		emit[j] = s.cfg.Ops[src].Rate
	}
	part, bcast := s.load(o, emit)
	var top float64
	for k := range p {
		top = max(top, (s.share(o, k, p)*part+bcast)*s.cfg.Ops[o].Cost/s.speed(o, k))
	}
	return top
}

func (s *Sim) checkPar(par []int) {
	if len(par) != len(s.cfg.Ops) {
		panic(fmt.Sprintf("sim: %d parallelisms for %d operators", len(par), len(s.cfg.Ops)))
	}
	for o, p := range par {
		if p < 1 {
			panic(fmt.Sprintf("sim: operator %d has parallelism %d", o, p))
		}
	}
}

// noise returns a factor drawn from [1−Noise, 1+Noise].
func (s *Sim) noise() float64 {
	if s.cfg.Noise == 0 {
		return 1
	}
	return 1 + s.cfg.Noise*(2*s.rng.Float64()-1)
}

// speed returns the speed of instance k of operator o: a function of the
// seed, the operator and k alone, so that an instance keeps its speed
// across rescalings and the configurations a brute force tries.
func (s *Sim) speed(o, k int) float64 {
	if s.cfg.Variation == 0 {
		return 1
	}
	u := float64(mix(s.cfg.Seed^mix(uint64(o)<<32|uint64(k)))>>11) / (1 << 53)
	return 1 + s.cfg.Variation*(2*u-1)
}
